/**
 * Each device's notification settings and push subscription, by the credential it signed in with (a browser's
 * session or a device token): `push.json` in the state directory (0600). A record lives only as long as its
 * credential: `prune` drops those whose credential was revoked or signed out, and the service prunes before
 * every send and every route, so a revoked device is never sent to and its record goes with it.
 */
import { readJsonFile, writeJsonFile } from "../json-file.js";
import { DEFAULT_NOTICE_SETTINGS, type NoticeSettings } from "./notice.js";

/** What `PushSubscription.toJSON()` gives, minus `expirationTime`: where to send, and the keys to encrypt to. */
export interface PushTarget {
	endpoint: string;
	keys: { p256dh: string; auth: string };
}

export interface DeviceRecord {
	settings: NoticeSettings;
	subscription?: PushTarget & { createdAt: string };
}

interface PushFile {
	version: 1;
	devices: Record<string, DeviceRecord>;
}

/** At most this many devices keep settings or a subscription; past it, subscribing is refused. */
export const MAX_DEVICES = 1000;

export class PushStore {
	private readonly devices: Map<string, DeviceRecord>;

	constructor(
		private readonly file: string,
		private readonly maxDevices = MAX_DEVICES,
	) {
		const read = readJsonFile<PushFile>(file, { version: 1, devices: {} });
		if (!read || typeof read.devices !== "object" || read.devices === null) {
			throw new Error(`${file}: expected {"version":1,"devices":{…}}; fix or remove it (devices enable again)`);
		}
		this.devices = new Map(Object.entries(read.devices));
	}

	get(credential: string): DeviceRecord {
		return this.devices.get(credential) ?? { settings: { ...DEFAULT_NOTICE_SETTINGS } };
	}

	/** Whether a new device would pass the cap (a known one always may change its record). */
	hasRoomFor(credential: string): boolean {
		return this.devices.has(credential) || this.devices.size < this.maxDevices;
	}

	set(credential: string, record: DeviceRecord): void {
		this.devices.set(credential, record);
		this.save();
	}

	/** Forgets the subscription this endpoint names, whoever holds it (a push service said it is gone). */
	dropEndpoint(endpoint: string): void {
		let changed = false;
		for (const [id, record] of this.devices) {
			if (record.subscription?.endpoint !== endpoint) continue;
			const { subscription: _gone, ...rest } = record;
			this.devices.set(id, rest);
			changed = true;
		}
		if (changed) this.save();
	}

	/** Drops every device whose credential is no longer live; answers the ids dropped. */
	prune(live: (credential: string) => boolean): string[] {
		const gone = [...this.devices.keys()].filter((id) => !live(id));
		for (const id of gone) this.devices.delete(id);
		if (gone.length > 0) this.save();
		return gone;
	}

	/** Devices with a subscription, for one event: those whose settings let it through. */
	subscribed(): [string, DeviceRecord & { subscription: PushTarget }][] {
		return [...this.devices].filter(
			(entry): entry is [string, DeviceRecord & { subscription: PushTarget & { createdAt: string } }] =>
				entry[1].subscription !== undefined,
		);
	}

	private save(): void {
		writeJsonFile(this.file, { version: 1, devices: Object.fromEntries(this.devices) } satisfies PushFile);
	}
}
