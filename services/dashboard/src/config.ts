import { z } from 'zod';
import { addressList, booleanFlag, httpUrl, listenerFields } from '@acs/config';

/** `<prefix>_<live|test>_<identifier>` (service-interface.md, "API key format"). */
const API_KEY_SHAPE = /^[a-z][a-z0-9]{1,15}_(live|test)_[A-Za-z0-9]{16,64}$/;

/** A required variable whose absence is explained in words, not as a type error. */
const required = (what: string) => z.string({ error: `required: ${what}` });
const longSecret = (what: string) => required(what).min(32, 'expected at least 32 characters');

export const dashboardConfigSchema = z.object({
  ...listenerFields(8086),
  /** The public gateway (its origin; a path is ignored). The dashboard talks to nothing else. */
  GATEWAY_URL: required("the public gateway's URL, such as http://gateway:8080").pipe(httpUrl()),
  /** The dashboard's own key: it must hold system:full-access (only it reaches /api/ApiKeys and /api/Subscriptions). */
  /**
   * The gateway as the users' applications reach it, shown in the snippet next to a new key.
   * Unset: GATEWAY_URL (right for `npm start`; in a cluster GATEWAY_URL is an internal name).
   */
  PUBLIC_GATEWAY_URL: httpUrl().optional(),
  DASHBOARD_API_KEY: required('an API key with scope system:full-access').regex(
    API_KEY_SHAPE,
    'expected an API key such as acs_live_<identifier>',
  ),
  DASHBOARD_API_SECRET: longSecret('the secret of DASHBOARD_API_KEY'),
  /** Encrypts session cookies and signs CSRF tokens (keys are derived from it); changing it signs everyone out. */
  SESSION_SECRET: longSecret('32 or more random characters, e.g. from openssl rand -base64 32'),
  /** Cookies are sent over HTTPS only. On by default; only a plain-HTTP development setup turns it off. */
  COOKIE_SECURE: booleanFlag(true),
  /**
   * Proxies in front of the dashboard (IPs or CIDR ranges, e.g. the Ingress controller's): their
   * X-Forwarded-For names the browser. The dashboard passes the browser's address on to the gateway,
   * so identity's per-address login throttle counts each visitor, not the dashboard.
   */
  TRUSTED_PROXIES: addressList(),
  /**
   * The keys service's maximum key lifetime (days), when the deployment sets one: give both the same
   * value, so the create form offers only lifetimes the keys service accepts (no "never").
   */
  /**
   * Identity's dev mailbox (a JSON Lines file), shown to visitors from this machine at /dev/mailbox. `npm start`
   * sets it when SMTP_URL is unset, so password reset links work offline; unset: no such page.
   */
  DEV_MAILBOX_FILE: z.string().min(1).optional(),
  KEY_MAX_LIFETIME_DAYS: z.coerce.number().int().positive().max(36_500).optional(),
});

export type DashboardConfig = z.infer<typeof dashboardConfigSchema>;
