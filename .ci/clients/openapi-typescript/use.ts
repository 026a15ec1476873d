// Copied by .ci/generators beside the types openapi-typescript generates
// (schema.ts), and compiled with tsc --strict: it uses a few of them, and
// each line after an expect-error directive must not compile.
import type { components, operations } from "./schema";

type Project = components["schemas"]["Project"];
type ProjectList = operations["listProjects"]["responses"][200]["content"]["application/json"];
type ErrorBody = components["schemas"]["Error"];

const notStarted: Project = {
  id: "prj_1",
  name: "Website relaunch",
  status: "planned",
  startedAt: null,
  dueAt: null,
  updatedAt: "2026-03-01T09:00:00Z",
};
export const page: ProjectList = {
  data: [notStarted],
  meta: { page: 1, per_page: 20, total: 1 },
};
export const failure: ErrorBody = {
  error: { code: "RATE_LIMITED", message: "slow down" },
};
// Each line below must not compile: if a type were too loose, the
// expect-error directive above it would be unused, which tsc refuses.
// @ts-expect-error updatedAt is not nullable
export const bad1: Project = { ...notStarted, updatedAt: null };
// @ts-expect-error statuses are lower case
export const bad2: Project = { ...notStarted, status: "PLANNED" };
// @ts-expect-error every key is required: absent values are null
export const bad3: Project = { id: "prj_1", name: "x", status: "planned", updatedAt: "2026-03-01T09:00:00Z" };
// @ts-expect-error a HEAD answer has no body
export const bad4: operations["listProjectsHead"]["responses"][200]["content"] = { "application/json": page };
