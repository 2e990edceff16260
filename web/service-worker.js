// The chamber's service worker, served as /sw.js (web/sw-plugin.ts writes the build's shell into it). It does three
// things, and nothing with the API:
//
// - the app shell, cached per build, so the page opens without the daemon and says the daemon is unreachable;
//   `/api/` is never cached nor answered here (a static route sends it straight to the network where the browser
//   offers one), and a page opened online always gets the daemon's own index.html (network first);
// - notifications: a Web Push message from the daemon (no page open), or a page's request (its tab hidden), shown
//   with showNotification; a click opens the session, a confirm's Yes/No answer it;
// - nothing else: no background sync, no caching of anything a session shows.
//
// A new build is a new worker (its shell's version differs): it installs its own cache, and on activation deletes
// every older one, so an upgraded pier never serves an old page with a new daemon.

const SHELL = __PIER_SHELL__;
const CACHE = `pier-shell-${SHELL.version}`;
const CACHE_PREFIX = "pier-shell-";

self.addEventListener("install", (event) => {
	// Where the browser has static routing (Chromium 123+), the API never even wakes the worker.
	try {
		event.addRoutes?.([{ condition: { urlPattern: "/api/*" }, source: "network" }])?.catch?.(() => {});
	} catch {
		// Not offered: the fetch handler below leaves /api/ alone.
	}
	event.waitUntil(
		caches
			.open(CACHE)
			.then((cache) => cache.addAll(SHELL.files))
			.then(() => self.skipWaiting()),
	);
});

self.addEventListener("activate", (event) => {
	keepAlive(
		event,
		caches
			.keys()
			.then((names) =>
				Promise.all(names.filter((n) => n.startsWith(CACHE_PREFIX) && n !== CACHE).map((n) => caches.delete(n))),
			)
			.then(() => self.clients.claim()),
	);
});

self.addEventListener("fetch", (event) => {
	const request = event.request;
	const url = new URL(request.url);
	if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
	if (request.mode === "navigate") {
		event.respondWith(navigation(request, url));
		return;
	}
	if (SHELL.files.includes(url.pathname) || url.pathname.startsWith("/assets/")) {
		event.respondWith(caches.match(request, { cacheName: CACHE }).then((hit) => hit ?? fetch(request)));
	}
});

/** Online: the daemon's page. Offline: the cached shell, whose sign-in check then says the daemon is unreachable. */
async function navigation(request, url) {
	try {
		return await fetch(request);
	} catch (error) {
		const cache = await caches.open(CACHE);
		const exact = await cache.match(request, { ignoreSearch: true });
		// A path without an extension is one of the app's own routes: the shell serves them all.
		const shell = /\.[a-z0-9]+$/i.test(url.pathname) ? undefined : await cache.match("/");
		if (exact || shell) return exact ?? shell;
		throw error;
	}
}

// ---- notifications -----------------------------------------------------------------------------------------

self.addEventListener("push", (event) => {
	let notice;
	try {
		notice = event.data?.json();
	} catch {
		notice = undefined;
	}
	if (!isNotice(notice)) return;
	keepAlive(event, show(notice));
});

self.addEventListener("message", (event) => {
	const message = event.data;
	if (message?.type === "pier.notify" && isNotice(message.notice) && sameOrigin(event.source)) {
		event.waitUntil(show(message.notice));
	}
});

function sameOrigin(source) {
	try {
		return source && new URL(source.url).origin === self.location.origin;
	} catch {
		return false;
	}
}

function isNotice(n) {
	return (
		n &&
		n.v === 1 &&
		(n.event === "finished" || n.event === "waiting") &&
		typeof n.sessionId === "string" &&
		typeof n.title === "string" &&
		typeof n.body === "string" &&
		typeof n.tag === "string"
	);
}

function show(notice) {
	const confirm = notice.dialog?.method === "confirm";
	return self.registration.showNotification(notice.title, {
		body: notice.body,
		tag: notice.tag,
		renotify: true,
		icon: "/icons/icon-192.png",
		badge: "/icons/icon-192.png",
		data: { sessionId: notice.sessionId, event: notice.event, dialog: notice.dialog },
		actions: confirm
			? [
					{ action: "yes", title: "Yes" },
					{ action: "no", title: "No" },
				]
			: [],
		requireInteraction: notice.event === "waiting",
	});
}

self.addEventListener("notificationclick", (event) => {
	const notification = event.notification;
	const data = notification.data ?? {};
	notification.close();
	const answering = (event.action === "yes" || event.action === "no") && data.dialog?.method === "confirm";
	keepAlive(event, answering ? answer(data, event.action === "yes") : openSession(data.sessionId));
});

/**
 * An event the browser delivered keeps the worker alive until its work is done. A constructed one, as the tests
 * dispatch, cannot extend the worker's life (waitUntil throws there), and the work goes on all the same.
 */
function keepAlive(event, work) {
	try {
		event.waitUntil(work);
	} catch {
		// A constructed event: see above.
	}
}

/** A confirm answered from the notification: the session's own dialog route, with this browser's credential. */
async function answer(data, confirmed) {
	const key = await browserKey();
	const path = `/api/pi/sessions/${encodeURIComponent(data.sessionId)}/dialogs/${encodeURIComponent(data.dialog.requestId)}`;
	let ok = false;
	try {
		const response = await fetch(path, {
			method: "POST",
			credentials: "same-origin",
			headers: {
				"Content-Type": "application/json",
				Accept: "application/json",
				...(key ? { "X-Pier-Key": key } : {}),
			},
			body: JSON.stringify({ confirmed }),
		});
		ok = response.ok;
	} catch {
		ok = false;
	}
	// Signed out, the question gone, the daemon down: the page says which, where the user can act on it.
	if (!ok) await openSession(data.sessionId);
	return ok;
}

async function openSession(sessionId) {
	const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
	const mine = windows.find((w) => new URL(w.url).origin === self.location.origin);
	if (mine) {
		mine.postMessage({ type: "pier.open-session", sessionId });
		return mine.focus().catch(() => mine);
	}
	return self.clients.openWindow(`/?s=${encodeURIComponent(sessionId)}`);
}

/** The browser key the page left for this worker (web/src/notify.ts): the daemon wants it next to the cookie. */
function browserKey() {
	return new Promise((resolve) => {
		const open = indexedDB.open("pier", 1);
		open.onupgradeneeded = () => open.result.createObjectStore("worker");
		open.onerror = () => resolve(undefined);
		open.onsuccess = () => {
			const db = open.result;
			try {
				const get = db.transaction("worker").objectStore("worker").get("browserKey");
				get.onsuccess = () => resolve(typeof get.result === "string" ? get.result : undefined);
				get.onerror = () => resolve(undefined);
			} catch {
				resolve(undefined);
			}
		};
	});
}
