/**
 * The dashboard's public SDK: the one module a plugin's screens (`plugins/<id>/admin/`) import from
 * the dashboard. Everything else under `plugins/admin-ui/app/` is the shell's own.
 */
export { api, ApiError, unwrap } from '../api/client';
export { sessionFetch } from '../api/session-expiry';
export { SessionDialog } from './session-dialog';
export { discardingChanges } from './unsaved-changes';
export type { paths } from '../api/schema';
export type { ApiAnswer, ApiBody } from './api-types';
export { useCan, useMe, type Me } from '../shell/session';
export {
  defineAdminScreens,
  type AdminMenuEntry,
  type AdminScreen,
  type AdminScreens,
  type AdminWidget,
} from './screens';
export { EmptyState, ErrorState, LoadingState, PageHeader, QueryState } from './page';
export { ListPage, type ListFilter, type ListPageProps, type ListQuery } from './list-page';
export { useUrlState } from './url-state';
export { confirmDestructive } from './confirm';
export { showSaved, showSaveError, useSaving } from './forms';
export { DraftReview, type DraftDiff, type DraftReviewProps } from './draft-panel';
export { CreateDialog, CreateForm } from './create-dialog';
export { TextLink, RecordPage, type RemoveRecord, SavedSwitch, Section, useRemoveRecord } from './record-page';
export { EnrolTwoFactor, RecoveryCodes } from './two-factor';
export { contrast, theme } from './theme';
export { pageInBrowser } from './local-list';
export { SectionLinks } from './section-links';
export { PathInput, slashed } from './path-input';
