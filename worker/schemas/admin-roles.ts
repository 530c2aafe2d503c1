/**
 * What a member of a research team may do (issue #60), least first: an assistant monitors, a
 * researcher also exports, recruits, manages datasets, models and synthetic participants and
 * deletes participants, an owner also manages people and the study's settings. Each role may do
 * all that the roles before it may.
 */
export const ADMIN_ROLES = ['assistant', 'researcher', 'owner'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];
export const roleAllows = (have: AdminRole, need: AdminRole) => ADMIN_ROLES.indexOf(have) >= ADMIN_ROLES.indexOf(need);
