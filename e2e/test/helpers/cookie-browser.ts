/**
 * A browser as far as redirects and cookies go: it keeps cookies per origin and follows no
 * redirect by itself, so a test sees every hop of a sign-in (partner → gateway → LMS).
 */
export function cookieBrowser() {
  const jar = new Map<string, Map<string, string>>();
  return {
    async get(url: string) {
      const origin = new URL(url).origin;
      const cookies = jar.get(origin);
      const res = await fetch(url, {
        redirect: 'manual',
        headers: cookies ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, value] = pair!.split('=') as [string, string];
        if (!jar.has(origin)) jar.set(origin, new Map());
        jar.get(origin)!.set(name.trim(), value);
      }
      return res;
    },
    cookiesOf(origin: string) {
      return jar.get(origin) ?? new Map();
    },
  };
}

export type CookieBrowser = ReturnType<typeof cookieBrowser>;

/**
 * The demo partner's form submitted for `member`, then every hop followed as a browser would:
 * the partner's 302 to the LMS (through the gateway), the LMS's 307 to its callback, and the
 * callback's answer (a 302 to /dashboard with the session cookie, or to /sign-in with an error).
 */
export async function signInThroughPartner(b: CookieBrowser, partnerUrl: string, member: Record<string, string>) {
  const login = await b.get(`${partnerUrl}/login?${new URLSearchParams({ tier: 'member', ...member })}`);
  const atLms = login.headers.get('location');
  if (login.status !== 302 || !atLms) throw new Error(`the partner did not send the browser on: ${login.status} ${await login.text()}`);
  const verify = await b.get(atLms);
  const callbackUrl = new URL(verify.headers.get('location')!, atLms).toString();
  const callback = await b.get(callbackUrl);
  return { login, atLms, verify, callbackUrl, callback };
}
