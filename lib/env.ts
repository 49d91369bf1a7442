/** Configuration from environment variables, failing fast at init (docs/style.md, Powertools example app). */

/**
 * The value of environment variable `name`.
 * @throws Error at container init when the variable is missing or empty: a deployment fault, not a request's.
 */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}
