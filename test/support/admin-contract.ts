// The admin API's contract as the tests see it: every answer of an admin port below /admin/v1 is
// checked against the OpenAPI document that port serves (admin/api-document.ts), with the checks
// the public API's answers get (openapi-contract.ts): a declared status, a declared errorCode, a
// body its schema accepts. The admin tests fetch through adminContractFetch.
import { adminApiDocument } from '../../admin/api-document.ts';
import { ContractViolation, documentContractProblems } from './openapi-contract.ts';

const document = adminApiDocument();

/** fetch(), and when the request went to `admin()` (the admin port under test), the answer checked; its body stays readable. */
export function adminContractFetch(admin: () => string): (input: string, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (new URL(input).origin === new URL(admin()).origin) await assertAdminContract(init?.method ?? 'GET', input, response);
    return response;
  };
}

export async function assertAdminContract(method: string, url: string, response: Response): Promise<void> {
  const target = new URL(url);
  const body = await response.clone().text();
  const problems = documentContractProblems(document, { method, path: target.pathname + target.search, status: response.status, headers: response.headers, body });
  if (problems === undefined || problems.length === 0) return;
  throw new ContractViolation(
    `${method} ${target.pathname} → ${response.status} breaks the admin API's OpenAPI document:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\n  body: ${body.slice(0, 500)}`,
  );
}
