/*
 * What the Kunci API page hands its script: the page (../api-keys/index.ts) writes it as JSON in the
 * `data-script` attribute of the key form, the script (./dashboard.ts) reads it. Both sides are
 * type-checked against these declarations (the server with Node's types, the script with the
 * DOM's), so a message one side expects and the other does not give stops the build.
 */

/** The texts of the script; `{name}`, `{date}`, `{status}` are placeholders it fills in. */
export interface ApiKeysScriptMessages {
  never: string;
  revoke: string;
  /** `{date}`: when the key was revoked. */
  revoked: string;
  nameRequired: string;
  copied: string;
  selectToCopy: string;
  /** `{name}`: the key's name. */
  confirmRevoke: string;
  sessionEnded: string;
  badName: string;
  notAllowed: string;
  notFound: string;
  tooManyRequests: string;
  /** `{status}`: the HTTP status. */
  failed: string;
  offline: string;
}

export interface ApiKeysScriptData {
  /** The BCP 47 locale of the page (`id-ID`, `en-GB`). */
  locale: string;
  /** The `Intl.DateTimeFormat` options with which the page writes dates (time zone included). */
  dateTimeOptions: Intl.DateTimeFormatOptions;
  /** The zone's Indonesian name (WIB, WITA, WIT) written in place of Intl's (`GMT+7`); null: Intl's own. */
  zoneName: string | null;
  messages: ApiKeysScriptMessages;
}
