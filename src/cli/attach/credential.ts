/**
 * How `pier attach` signs in. On this machine it proves what `pier pair` proves: that it can write the chamber's
 * state directory. It leaves a one-use pairing token (60 s, only its hash on disk) in the directory's inbox, and
 * trades it at once at the daemon's loopback address for a browser session (cookie + key) that lives in this
 * process's memory only and is signed out when the terminal detaches. Elsewhere (`--url`) the user brings a
 * device token, which is sent over https or to a loopback address only.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { mintPairingToken, runningDaemon } from "../../chamber/auth/pairing-inbox.js";
import { ArgsError } from "../args.js";
import type { Credential } from "./client.js";

/** How long the pairing token that `pier attach` leaves in the inbox works: long enough for one request. */
export const ATTACH_TOKEN_TTL_MS = 60_000;

export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, "");
	if (host === "localhost" || host === "::1") return true;
	return isIP(host) === 4 && host.startsWith("127.");
}

/** The address of the daemon that owns `stateDir`: its loopback one, never another it recorded. */
export function localDaemonUrl(stateDir: string): string {
	const daemon = runningDaemon(stateDir);
	if (!daemon)
		throw new ArgsError(`no chamber runs on ${stateDir}: start one with \`pier serve\` (or name one with --url)`);
	const url = daemon.urls.find((u) => {
		try {
			const parsed = new URL(u);
			return parsed.protocol === "http:" && isLoopbackHost(parsed.hostname);
		} catch {
			return false;
		}
	});
	if (!url)
		throw new ArgsError(
			`the chamber of ${stateDir} records no loopback address (${daemon.urls.join(", ") || "none"}); pier attach signs in only over loopback: use --url with --token`,
		);
	return url;
}

/** Signs in to the daemon of `stateDir` through its pairing inbox; the answer's cookie and key are the credential. */
export async function signInLocally(stateDir: string, url: string): Promise<Credential> {
	const token = randomBytes(32).toString("base64url");
	mintPairingToken(stateDir, token, Date.now() + ATTACH_TOKEN_TTL_MS);
	const response = await fetch(new URL("/api/auth/pair", url), {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ token }),
	});
	const body = (await response.json().catch(() => undefined)) as
		| { key?: string; error?: { code: string; message: string } }
		| undefined;
	const cookie = response.headers.get("set-cookie")?.split(";")[0];
	if (response.status !== 200 || !cookie?.startsWith("pier_session=") || typeof body?.key !== "string") {
		throw new ArgsError(
			`the chamber at ${url} refused pier attach's sign-in (${response.status} ${body?.error?.code ?? ""}): is it the daemon of ${stateDir}?`,
		);
	}
	return { kind: "browser", cookie, key: body.key };
}

/** `--url` with a device token: refused where the token would cross the network in the clear. */
export function remoteCredential(url: string, token: string | undefined): Credential {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new ArgsError(`--url must be the chamber's address, such as http://127.0.0.1:7777/, got ${url}`);
	}
	if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
		throw new ArgsError(`--url must be an http or https address, got ${url}`);
	if (!token)
		throw new ArgsError(
			'--url needs a device token: --token <pier_dt_…> or $PIER_TOKEN (a signed-in client makes one with POST /api/auth/tokens {"name": …})',
		);
	if (parsed.protocol === "http:" && !isLoopbackHost(parsed.hostname))
		throw new ArgsError(
			`refusing to send a device token over plain http to ${parsed.host}: use an https address (or a loopback one)`,
		);
	return { kind: "bearer", token };
}
