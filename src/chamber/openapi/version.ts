/**
 * The API's version, sent as `Pier-Api-Version` on every `/api` answer (event streams included) and published as
 * the OpenAPI document's `info.version`. It changes only on a breaking change, after the deprecation rule of
 * docs/chamber-api.md ("Versions and deprecation"); additions (routes, optional fields, events) keep it.
 */
export const API_VERSION = "1";
export const API_VERSION_HEADER = "Pier-Api-Version";
