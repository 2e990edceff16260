/**
 * "Notifications" in the account menu: this device's switch for each event (a run finishes, a session waits on
 * you), the browser's permission and whether the daemon can reach it by Web Push when no page is open. The
 * watcher (`useNotifyWatcher`) lives with the account menu, so it runs on every signed-in screen.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import {
	notificationsSupported,
	permission,
	shareKeyWithWorker,
	subscribePush,
	unsubscribePush,
	watchSessions,
} from "../notify.js";
import type { NoticeSettings, PushDeviceView } from "../types.js";

const CHANGED = "pier:notify-settings";

/** Follows sessions for notifications while the browser lets this page show them and the device wants any. */
export function useNotifyWatcher(): void {
	const [settings, setSettings] = useState<NoticeSettings | undefined>();
	useEffect(() => {
		const load = () => {
			if (permission() !== "granted") return setSettings(undefined);
			api.pushSettings().then(
				(v) => setSettings(v.settings),
				() => setSettings(undefined),
			);
		};
		load();
		window.addEventListener(CHANGED, load);
		return () => window.removeEventListener(CHANGED, load);
	}, []);
	const wanted = settings !== undefined && (settings.finished || settings.waiting);
	useEffect(() => {
		if (!wanted || !settings) return;
		const current = settings;
		// The worker answers confirms with this browser's key: kept current (a new sign-in is a new key).
		void shareKeyWithWorker(true);
		return watchSessions(() => current);
	}, [wanted, settings]);
	// Signing out unmounts the menu: the worker keeps no key of a browser that is gone.
	useEffect(() => () => void shareKeyWithWorker(false), []);
}

export function NotifySettings() {
	const [state, setState] = useState(permission);
	const [view, setView] = useState<PushDeviceView | undefined>();
	const [problem, setProblem] = useState<string | undefined>();
	const [busy, setBusy] = useState(false);

	const changed = useCallback((next: PushDeviceView) => {
		setView(next);
		window.dispatchEvent(new Event(CHANGED));
	}, []);

	useEffect(() => {
		api.pushSettings().then(setView, (err) => setProblem(describeError(err)));
	}, []);

	const act = async (work: () => Promise<void>) => {
		setBusy(true);
		setProblem(undefined);
		try {
			await work();
		} catch (err) {
			setProblem(describeError(err));
		} finally {
			setBusy(false);
		}
	};

	const turnOn = () =>
		act(async () => {
			const answer = await Notification.requestPermission();
			setState(answer);
			if (answer !== "granted") return;
			await shareKeyWithWorker(true);
			const why = await subscribePush();
			if (why) setProblem(`Push is not available in this browser (${why}).`);
			changed(await api.pushSettings());
		});

	const toggle = (key: keyof NoticeSettings) =>
		act(async () => {
			const current = view?.settings ?? { finished: true, waiting: true };
			changed(await api.putPushSettings({ ...current, [key]: !current[key] }));
		});

	const stopPush = () =>
		act(async () => {
			await unsubscribePush();
			changed(await api.pushSettings());
		});

	if (!notificationsSupported()) {
		return <p class="muted">This browser cannot show notifications.</p>;
	}
	return (
		<div class="notify-settings" data-testid="notify-settings">
			<p class="muted">
				Get a system notification when a run finishes or a session waits on you, while the chamber's page is in the
				background or closed. These switches are this device's own.
			</p>
			{state === "denied" && (
				<p class="notify-status" data-testid="notify-permission">
					Notifications are blocked for this site: allow them in the browser's site settings.
				</p>
			)}
			{state === "default" && (
				<button type="button" class="primary" data-testid="notify-enable" disabled={busy} onClick={turnOn}>
					Turn on notifications
				</button>
			)}
			{state === "granted" && view && (
				<>
					<fieldset class="notify-events">
						<legend>Notify me when</legend>
						<label>
							<input
								type="checkbox"
								data-testid="notify-finished"
								checked={view.settings.finished}
								disabled={busy}
								onChange={() => toggle("finished")}
							/>
							a run finishes
						</label>
						<label>
							<input
								type="checkbox"
								data-testid="notify-waiting"
								checked={view.settings.waiting}
								disabled={busy}
								onChange={() => toggle("waiting")}
							/>
							a session waits on you (a question, an approval)
						</label>
					</fieldset>
					<p class="notify-status" data-testid="notify-push">
						{view.subscribed
							? `With no page open, the daemon reaches this device through ${view.pushService ?? "its push service"}.`
							: "With no page open, this device is not reached: notifications come while a chamber page is open, even in the background."}
					</p>
					<div class="notify-actions">
						{view.subscribed ? (
							<button type="button" data-testid="notify-push-off" disabled={busy} onClick={stopPush}>
								Stop push to this device
							</button>
						) : (
							<button type="button" data-testid="notify-push-on" disabled={busy} onClick={turnOn}>
								Try push again
							</button>
						)}
					</div>
				</>
			)}
			{problem && (
				<p class="notify-problem" role="status" data-testid="notify-problem">
					{problem}
				</p>
			)}
		</div>
	);
}
