/**
 * What the Changes view keeps per session, in pier's state directory (`<state>/changes/<session id>/`), never in
 * the project: `turns.json` (each run's changed files, by content id), `blobs/` (outside git: the content of each
 * file before and after the agent wrote it, named by its SHA-256) and `index` (in git: the private index the
 * snapshots are written through). A daemon restart keeps all of it, so the view and its reverts outlive it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readJsonFile, writeJsonFile } from "../json-file.js";
import type { ChangesMode } from "./wire.js";

/** One file one run changed: content ids before and after (null: the file did not exist). */
export interface FileRecord {
	path: string;
	before: string | null;
	after: string | null;
	/** git's modes (snapshots: the file's, when it exists); 120000 a symbolic link, 160000 a submodule. */
	beforeMode?: string;
	afterMode?: string;
	reverted?: string;
}

export interface TurnRecord {
	turn: number;
	prompt: string;
	startedAt: string;
	endedAt: string;
	/** Content ids are git blob ids in "git" mode, SHA-256 names under blobs/ in "snapshots" mode. */
	mode: ChangesMode;
	files: FileRecord[];
}

interface StoredTurns {
	version: 1;
	/** Runs counted so far (turn numbers keep counting runs that changed nothing). */
	runs: number;
	turns: TurnRecord[];
}

/** Records of more turns than this drop the oldest: the view is for review, not an archive. */
const MAX_TURNS = 500;

export class SessionStore {
	readonly dir: string;
	private data: StoredTurns | undefined;

	constructor(changesDir: string, sessionId: string) {
		if (!/^[\w.-]{1,200}$/.test(sessionId) || sessionId.startsWith("."))
			throw new Error(`not a session id: ${sessionId}`);
		this.dir = join(changesDir, sessionId);
	}

	get indexFile(): string {
		mkdirSync(this.dir, { recursive: true, mode: 0o700 });
		return join(this.dir, "index");
	}

	private load(): StoredTurns {
		this.data ??= readJsonFile<StoredTurns>(join(this.dir, "turns.json"), { version: 1, runs: 0, turns: [] });
		return this.data;
	}

	turns(): readonly TurnRecord[] {
		return this.load().turns;
	}

	nextTurn(): number {
		const data = this.load();
		data.runs += 1;
		return data.runs;
	}

	add(turn: TurnRecord): void {
		const data = this.load();
		data.turns.push(turn);
		if (data.turns.length > MAX_TURNS) data.turns.splice(0, data.turns.length - MAX_TURNS);
		this.save();
	}

	save(): void {
		writeJsonFile(join(this.dir, "turns.json"), this.load());
	}

	/** Keeps `bytes` under its SHA-256 (once) and returns that name. */
	async putBlob(bytes: Buffer): Promise<string> {
		const id = createHash("sha256").update(bytes).digest("hex");
		const dir = join(this.dir, "blobs");
		const file = join(dir, id);
		if (!existsSync(file)) {
			mkdirSync(dir, { recursive: true, mode: 0o700 });
			await writeFile(file, bytes, { mode: 0o600 });
		}
		return id;
	}

	async getBlob(id: string): Promise<Buffer> {
		if (!/^[0-9a-f]{64}$/.test(id)) throw new Error(`not a snapshot id: ${id}`);
		return readFile(join(this.dir, "blobs", id));
	}
}
