/** The Providers page's wire shapes, declared once for the daemon (provider-routes.ts) and the page. */

export type ProviderSource = "auth.json" | "environment" | "models.json" | "runtime" | "none";

export interface ProviderView {
	id: string;
	name: string;
	/** Where its credentials come from; "none": its models cannot be used until a key is set. */
	credentials: ProviderSource;
	models: number;
	/** Added to models.json (through this page or by hand). */
	custom: boolean;
	/** pi signs in to it with OAuth (`pier auth login <provider>` in a terminal). */
	oauth: boolean;
}

/** What a custom provider's POST answers: pi's verdict on the file, in numbers the page shows by the button. */
export interface CustomProviderResult {
	provider: string;
	/** Its models as pi loaded them from the written models.json. */
	models: number;
	/** Of those, the ones a session can use now (pi knows a key for them). */
	usable: number;
	/** Sessions already running that were given the new models. */
	sessionsUpdated: number;
	/** True when no key was given and the placeholder was written in its place. */
	placeholderKey: boolean;
}
