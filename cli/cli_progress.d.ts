// Type declarations for the parts of the `cli-progress` npm package the
// command line uses (the package ships none).

/** A writable text stream the bar draws on. */
export interface ProgressStream {
  write(chunk: string, callback?: () => void): boolean;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Bar options. */
export interface Options {
  format?: string;
  stream?: ProgressStream;
  fps?: number;
  barsize?: number;
  hideCursor?: boolean;
  clearOnComplete?: boolean;
  stopOnComplete?: boolean;
  linewrap?: boolean;
  gracefulExit?: boolean;
  noTTYOutput?: boolean;
  barCompleteChar?: string;
  barIncompleteChar?: string;
}

/** A single progress bar. */
export class SingleBar {
  constructor(options: Options, preset?: Options);
  start(total: number, startValue: number, payload?: Record<string, unknown>): void;
  update(current: number, payload?: Record<string, unknown>): void;
  setTotal(total: number): void;
  stop(): void;
}

/** The package's default export. */
declare const cliProgress: {
  SingleBar: typeof SingleBar;
  Presets: { shades_classic: Options; legacy: Options; rect: Options };
};
export default cliProgress;
