/** The password form. Pairing links sign in before this is ever shown (see App). */
import { useState } from "preact/hooks";
import { api, describeError } from "../api.js";

interface Props {
	passwordConfigured: boolean;
	/** What to run where the daemon runs for a sign-in link, as the daemon says it was started. */
	pairCommand?: string;
	notice?: string;
	onSignedIn: () => void;
}

export function Login({ passwordConfigured, pairCommand = "pier pair", notice, onSignedIn }: Props) {
	const [password, setPassword] = useState("");
	const [error, setError] = useState<string | undefined>();
	const [busy, setBusy] = useState(false);

	const submit = async (e: Event) => {
		e.preventDefault();
		setBusy(true);
		setError(undefined);
		try {
			await api.login(password);
			setPassword("");
			onSignedIn();
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(false);
		}
	};

	return (
		<main class="login">
			<form class="login-card" onSubmit={submit}>
				<h1>pier</h1>
				<p class="muted">Sign in to the chamber.</p>
				{notice && <p class="notice">{notice}</p>}
				{!passwordConfigured && (
					<p data-testid="login-no-password">
						This daemon has no UI password, so it signs browsers in with links only. Where it runs, run{" "}
						<code>{pairCommand}</code> and open the link it prints (or the one <code>pier serve</code> printed when it
						started).
					</p>
				)}
				{passwordConfigured && (
					<>
						<label class="field">
							<span class="field-label">Password</span>
							<input
								type="password"
								data-testid="login-password"
								autocomplete="current-password"
								value={password}
								// biome-ignore lint/a11y/noAutofocus: the only field on the page
								autoFocus
								onInput={(e) => setPassword(e.currentTarget.value)}
							/>
						</label>
						<button type="submit" class="primary" data-testid="login-submit" disabled={busy || !password}>
							Sign in
						</button>
						<p class="muted">
							Or run <code>{pairCommand}</code> where the daemon runs, for a sign-in link.
						</p>
					</>
				)}
				{error && (
					<div class="inline-error" role="alert" data-testid="login-error">
						{error}
					</div>
				)}
			</form>
		</main>
	);
}
