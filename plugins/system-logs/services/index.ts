import path from 'node:path';
import type { Static } from '@sinclair/typebox';
import type { Readable } from 'node:stream';
import { notFound, type Config, type LogFiles } from '../../../kernel/index.ts';
import type { SystemLogsConfig } from '../config.ts';
import { download, tail, type LogFileSource, type LogLine, type TailQuery } from './log-lines.ts';
import { RemoteLogStore } from './remote-store.ts';
import { LogShipper } from './shipper.ts';
import { LogStore, type StoredSegment } from './store.ts';

export interface SystemLogs {
  logFiles: LogFiles;
  /** The bearer token of the store's routes. */
  serviceToken: string | undefined;
  /** The store of shipped files: on the asset-processor (and all-in-one) when it writes log files. */
  store: LogStore | undefined;
  /** Where this process ships its files (core-api and gateway with LOG_STORE_URL). */
  shipper: LogShipper | undefined;
  /**
   * What the store's segment routes write to: the store itself (asset-processor, all-in-one), or on
   * core-api of a split deployment the asset-processor's, so that the gateway ships through core-api
   * (the spec's service-to-service calls are gateway → core-api and core-api → asset-processor).
   */
  segments: SegmentStore | undefined;
  /** What `GET /api/v1/system/logs` answers. */
  tail(query: TailQuery): Promise<LogLine[]>;
  /** What `GET /api/v1/system/logs/download` streams. */
  download(service?: string): Promise<Readable>;
  /** What the store's routes answer: the store's files and its own process's, from this process's disk. */
  localTail(query: TailQuery): Promise<LogLine[]>;
  localDownload(service?: string): Readable;
}

type Settings = Static<typeof SystemLogsConfig>;

/** Stored copies of shipped files: their sizes, and appending to one. */
export interface SegmentStore {
  segments(service: string): Promise<StoredSegment[]>;
  append(service: string, name: string, offset: number, bytes: Buffer): Promise<number>;
}

const filesOff = () =>
  notFound(
    'This installation writes no log files (standard output only): set LOG_DIR, and LOG_STORE_URL on core-api and the gateway of a split deployment (README "System logs")',
    'LOG_FILES_OFF',
  );

export function createSystemLogs(deps: { logFiles: LogFiles; config: Config; settings: Settings }): SystemLogs {
  const { logFiles, config, settings } = deps;
  const isStore = logFiles.source === 'asset-processor' || logFiles.source === 'all-in-one';
  if (settings.LOG_STORE_URL && !settings.DAM_SERVICE_TOKEN)
    throw new Error('system-logs: LOG_STORE_URL is set but DAM_SERVICE_TOKEN is not; the log store needs both');
  const remote =
    !isStore && settings.LOG_STORE_URL && settings.DAM_SERVICE_TOKEN
      ? new RemoteLogStore(settings.LOG_STORE_URL, settings.DAM_SERVICE_TOKEN)
      : undefined;
  const store =
    isStore && logFiles.dir ? new LogStore(path.join(logFiles.dir, 'store'), config.LOG_FILE_COUNT + 1) : undefined;
  const shipper = remote && logFiles.enabled ? new LogShipper({ files: logFiles, store: remote }) : undefined;

  const own: LogFileSource = {
    service: logFiles.source,
    files: async () => {
      await logFiles.flush();
      return logFiles.list();
    },
  };
  const localSources = async () => [own, ...((await store?.sources()) ?? [])];
  const localTail = async (query: TailQuery) => tail(await localSources(), query);
  const localDownload = (service?: string) => download(localSources, service);

  return {
    logFiles,
    serviceToken: settings.DAM_SERVICE_TOKEN,
    store,
    shipper,
    segments: store ?? (logFiles.source === 'core-api' ? remote : undefined),
    localTail,
    localDownload,
    async tail(query) {
      if (remote) {
        // core-api's own latest lines reach the store first; the store answers for every service.
        await shipper?.ship().catch(() => undefined);
        return remote.tail(query);
      }
      if (!logFiles.enabled) throw filesOff();
      return localTail(query);
    },
    async download(service) {
      if (remote) {
        await shipper?.ship().catch(() => undefined);
        return remote.download(service);
      }
      if (!logFiles.enabled) throw filesOff();
      return localDownload(service);
    },
  };
}
