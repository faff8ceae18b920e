/** The part of a pino logger this package uses; pass the app's logger, or nothing. */
export interface PartnerAuthLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export const silentLogger: PartnerAuthLogger = { info() {}, warn() {} };
