// The package ships no types: its one function, as its README describes it (the options this project uses).
declare module 'pino-roll' {
  import type { EventEmitter } from 'node:events';

  interface PinoRollOptions {
    /** Base path; the number (and extension) are appended: `<file>.<n><extension>`. */
    file: string;
    /** Size at which the file rolls: a number of MB, or `'10m'`, `'512k'`. */
    size?: string | number;
    extension?: string;
    /** Keeps `count` files beside the current one; `removeOtherLogFiles` counts files of earlier runs too. */
    limit?: { count: number; removeOtherLogFiles?: boolean };
    mkdir?: boolean;
    sync?: boolean;
  }

  /** The sonic-boom stream it returns (the members this project uses). */
  interface RollStream extends EventEmitter {
    /** Path of the file being written now. */
    readonly file: string;
    write(data: string): boolean;
    flush(cb?: (err?: Error) => unknown): void;
    end(): void;
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<RollStream>;
}
