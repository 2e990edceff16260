/**
 * How long one turn of QuickJS guest work may keep its worker: the frame's own work and every promise job it
 * queues. Jobs matter as much as the call: a chain that re-arms itself (from a rejection handler it even
 * catches the interrupt) would otherwise run forever after the call answered, and the worker would never
 * read the next frame.
 *
 * - A turn may run until its deadline (the invocation timeout), measured from when the turn began.
 * - Once the guest has answered every host request, what is left of the turn is idle time: jobs may run
 *   for at most `idleMs` more (work that outlives its call does not get a whole deadline).
 * - When the deadline passes, the interrupt stops the running job, and the guest gets `graceMs` from that
 *   interrupt to finish reporting (an interrupted tool still answers with its failure). Only the interrupt
 *   starts the grace: the drain only looks at the clock between batches of jobs, so if it started the grace
 *   too, whether a spinning chain was interrupted at the deadline or ran on until the grace ended would depend
 *   on which of the two looked first.
 * - After that, the worker is stopped if the guest does not stop (jobs still run when the grace ends, or the
 *   interrupt fires again), and also if its jobs ran out without it answering anything since the interrupt:
 *   the interrupt may break the very chain that spins (it lands in a job whose rejection nobody handles), and
 *   a call left unanswered by a worker sitting idle would wait for the host's own timeout.
 * - Idle work past `idleMs` has no call left to report to: the worker is stopped at once, whether or not the
 *   interrupt happened to break the chain (where it lands decides that, so it must not decide the outcome).
 */

/** The part of QuickJSRuntime the budget drives. */
export interface JobRunner {
	hasPendingJob(): boolean;
	executePendingJobs(maxJobsToExecute?: number): { error?: { dispose(): void }; value?: number };
}

export interface TurnLimits {
	deadlineMs: number;
	/** Default: min(1 s, deadline). */
	idleMs?: number;
	/** Default: min(250 ms, deadline). */
	graceMs?: number;
}

/** Jobs run between two looks at the clock. */
const JOB_BATCH = 64;

export class TurnBudget {
	private readonly deadlineMs: number;
	private readonly idleMs: number;
	private readonly graceMs: number;
	/** Host requests the guest has not answered: requests in minus responses out. */
	private outstanding = 0;
	/** Responses the guest has sent: whether it answered anything after the deadline's interrupt. */
	private answered = 0;
	private limit = Number.POSITIVE_INFINITY;
	private idle = false;
	/** `answered` when the deadline's interrupt fired; undefined until it has. */
	private answeredAtInterrupt: number | undefined;
	/** The interrupt fired past the grace, or past the idle limit: the guest did not stop. */
	private overran = false;

	constructor(
		private readonly runtime: JobRunner,
		limits: TurnLimits,
		private readonly now: () => number = Date.now,
	) {
		this.deadlineMs = limits.deadlineMs;
		this.idleMs = limits.idleMs ?? Math.min(1_000, limits.deadlineMs);
		this.graceMs = limits.graceMs ?? Math.min(250, limits.deadlineMs);
	}

	/** A frame from the host (counted before its turn runs). */
	received(json: string): void {
		if (json.startsWith('{"type":"request"')) this.outstanding++;
	}

	/** A frame from the guest. Its text is the guest's own: a forged response only shortens its own budget. */
	sent(json: string): void {
		if (this.outstanding > 0 && json.startsWith('{"type":"response"')) {
			this.outstanding--;
			this.answered++;
		}
	}

	/**
	 * The interrupt handler's answer: whether the running job is past the turn's limit. The first interrupt past
	 * the deadline starts the grace; any later one (or one past the idle limit) means the guest did not stop.
	 */
	interrupt(): boolean {
		const now = this.now();
		if (now <= this.limit) return false;
		if (this.idle || this.answeredAtInterrupt !== undefined) {
			this.overran = true;
		} else {
			this.answeredAtInterrupt = this.answered;
			this.limit = now + this.graceMs;
		}
		return true;
	}

	/** The guest is being stopped from outside (its host went, or a last-resort limit): the drain ends now. */
	abort(): void {
		this.overran = true;
	}

	begin(): void {
		const now = this.now();
		this.limit = now + this.deadlineMs;
		this.idle = false;
		this.answeredAtInterrupt = undefined;
		this.overran = false;
		this.noteIdle(now);
	}

	/**
	 * Runs the turn's promise jobs until none is left; returns why the guest was stopped short, if it was.
	 * An error from a job is the guest's own (its promise rejected); it does not end the drain.
	 */
	drain(): string | undefined {
		for (;;) {
			const now = this.now();
			this.noteIdle(now);
			if (this.overran || (this.idle && now > this.limit)) return this.overrun();
			if (!this.runtime.hasPendingJob()) {
				const interrupted = this.answeredAtInterrupt !== undefined;
				return interrupted && this.answered === this.answeredAtInterrupt ? this.unanswered() : this.end();
			}
			// Past the grace: the interrupt ends the guest's turn (above). This look at the clock is only the
			// fallback for jobs the interrupt never polled during a whole grace.
			if (now > this.limit + (this.answeredAtInterrupt === undefined ? this.graceMs : 0)) return this.overrun();
			const jobs = this.runtime.executePendingJobs(JOB_BATCH);
			jobs.error?.dispose();
		}
	}

	private noteIdle(now: number): void {
		if (this.idle || this.outstanding > 0) return;
		this.idle = true;
		this.limit = Math.min(this.limit, now + this.idleMs);
	}

	private end(): undefined {
		this.limit = Number.POSITIVE_INFINITY;
		return undefined;
	}

	private unanswered(): string {
		this.limit = Number.POSITIVE_INFINITY;
		return (
			`was interrupted at its ${this.deadlineMs} ms deadline and answered nothing after it (for example a call ` +
			"that never settles while a promise chain spins); it was stopped"
		);
	}

	private overrun(): string {
		this.limit = Number.POSITIVE_INFINITY;
		return this.idle
			? `promise jobs kept running after it had answered every call (more than ${this.idleMs} ms idle work, ` +
					"for example a promise chain that re-arms itself); it was stopped"
			: `promise jobs kept running past the ${this.deadlineMs} ms deadline; it was stopped`;
	}
}
