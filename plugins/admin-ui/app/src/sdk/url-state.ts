import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';

/**
 * A screen's list state in the URL (`?action=user.&page=2&sort=-createdAt`): shareable, and the back
 * button walks through it. Setting a value drops the empty ones and, unless `page` itself changes,
 * returns to page 1.
 */
export function useUrlState<K extends string>(names: readonly K[]) {
  const [params, setParams] = useSearchParams();
  // The names are a constant of the screen; a new array each render must not make new values.
  const key = names.join(',');
  const values = useMemo(
    () => Object.fromEntries(key.split(',').map((n) => [n, params.get(n) ?? ''])) as Record<K, string>,
    [params, key],
  );
  const set = useCallback(
    (changes: Partial<Record<K | 'page' | 'sort', string>>) => {
      setParams((current) => {
        const next = new URLSearchParams(current);
        for (const [k, v] of Object.entries(changes) as [string, string | undefined][]) {
          if (v) next.set(k, v);
          else next.delete(k);
        }
        if (!('page' in changes)) next.delete('page');
        return next;
      });
    },
    [setParams],
  );
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const sortParam = params.get('sort') ?? '';
  const sort = sortParam
    ? {
        column: sortParam.replace(/^-/, ''),
        direction: sortParam.startsWith('-') ? ('desc' as const) : ('asc' as const),
      }
    : undefined;
  return { values, set, page, sort };
}
