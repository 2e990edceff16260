/**
 * The QuickJS turn budget against a scripted job runner and clock: the outcome of a turn whose work runs into
 * the deadline must not depend on whether the interrupt or the drain's look at the clock comes first.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type JobRunner, TurnBudget } from "../../src/extensions/runtimes/quickjs/turns.js";

const DEADLINE = 100;
const GRACE = 10;
const IDLE = 20;
const REQUEST = '{"type":"request","id":"1"}';
const RESPONSE = '{"type":"response","id":"1"}';

/**
 * QuickJS's job queue as the budget sees it: each job costs `jobMs` of the clock, and every `pollEvery` jobs
 * QuickJS asks the interrupt handler (as it does every so many function calls). A job the interrupt lands in
 * throws; what that does to the guest is the job's own `onInterrupt`.
 */
class Runner implements JobRunner {
	now = 0;
	budget!: TurnBudget;
	private queue: Job[] = [];
	private ticks = 0;
	constructor(
		private readonly pollEvery: number,
		private readonly jobMs = 0.05,
	) {}
	push(job: Job): void {
		this.queue.push(job);
	}
	hasPendingJob(): boolean {
		return this.queue.length > 0;
	}
	executePendingJobs(max = Number.POSITIVE_INFINITY): { value: number } {
		let ran = 0;
		while (ran < max && this.queue.length > 0) {
			const job = this.queue.shift()!;
			this.now += this.jobMs;
			ran++;
			const interrupted = ++this.ticks % this.pollEvery === 0 && this.budget.interrupt();
			if (interrupted) job.onInterrupt?.();
			else job.run();
		}
		return { value: ran };
	}
}
interface Job {
	run(): void;
	onInterrupt?(): void;
}

function setup(pollEvery: number, offset = 0) {
	const runner = new Runner(pollEvery);
	runner.now = offset;
	const budget = new TurnBudget(runner, { deadlineMs: DEADLINE, graceMs: GRACE, idleMs: IDLE }, () =>
		Math.floor(runner.now),
	);
	runner.budget = budget;
	return { runner, budget };
}

/** `Promise.reject(e).catch(spin)`: re-arms from its handler; an interrupt inside it breaks the chain. */
function spinningChain(runner: Runner): Job {
	const job: Job = { run: () => runner.push(job), onInterrupt: () => {} };
	return job;
}

/** A spacing of interrupt polls shorter, about equal, and much longer than the drain's batch of jobs. */
const POLLS = [1, 7, 64, 65, 1_000, 13_000, Number.MAX_SAFE_INTEGER];

describe("QuickJS turn budget", () => {
	for (const pollEvery of POLLS) {
		for (const offset of [0, 0.37, 0.81]) {
			test(`a spinning chain in a call that never answers is stopped (interrupt every ${pollEvery} jobs, clock +${offset})`, () => {
				const { runner, budget } = setup(pollEvery, offset);
				budget.received(REQUEST);
				budget.begin();
				runner.push(spinningChain(runner));
				const outcome = budget.drain();
				assert.match(outcome ?? "undefined", /deadline.*it was stopped/);
				assert.ok(runner.now <= offset + DEADLINE + 2 * GRACE + 1, `ended at ${runner.now} ms`);
			});
		}
	}

	for (const pollEvery of POLLS) {
		test(`a chain re-arming after the call answered is stopped at the idle limit (interrupt every ${pollEvery} jobs)`, () => {
			const { runner, budget } = setup(pollEvery);
			budget.received(REQUEST);
			budget.begin();
			budget.sent(RESPONSE);
			runner.push(spinningChain(runner));
			assert.match(budget.drain() ?? "undefined", /after it had answered every call/);
			assert.ok(runner.now <= IDLE + GRACE + 1, `ended at ${runner.now} ms`);
		});
	}

	test("an interrupted call that answers with its failure leaves the worker running", () => {
		const { runner, budget } = setup(1);
		budget.received(REQUEST);
		budget.begin();
		// A loop that polls the interrupt until it is stopped, then the tool's rejection answers the call.
		const loop: Job = { run: () => runner.push(loop), onInterrupt: () => runner.push(answer) };
		const answer: Job = { run: () => budget.sent(RESPONSE) };
		runner.push(loop);
		assert.equal(budget.drain(), undefined);
		assert.ok(runner.now > DEADLINE, "the loop ran until its deadline");
	});

	test("an interrupted call that answers but whose chain goes on is stopped", () => {
		const { runner, budget } = setup(50);
		budget.received(REQUEST);
		budget.begin();
		const chain = spinningChain(runner);
		chain.onInterrupt = () => {
			budget.sent(RESPONSE);
			runner.push(chain);
		};
		runner.push(chain);
		assert.match(budget.drain() ?? "undefined", /it was stopped/);
	});

	test("a call waiting for the host, with no work left, is not an overrun", () => {
		const { runner, budget } = setup(1);
		budget.received(REQUEST);
		budget.begin();
		let left = 1_000;
		const step: Job = { run: () => (--left > 0 ? runner.push(step) : undefined) };
		runner.push(step);
		assert.equal(budget.drain(), undefined);
		// The next turn (the host's answer) starts with a fresh deadline.
		budget.begin();
		runner.push({ run: () => budget.sent(RESPONSE) });
		assert.equal(budget.drain(), undefined);
	});

	test("a deadline interrupt in one turn does not carry over into the next", () => {
		const { runner, budget } = setup(1);
		budget.received(REQUEST);
		budget.received(REQUEST);
		budget.begin();
		const loop: Job = { run: () => runner.push(loop), onInterrupt: () => budget.sent(RESPONSE) };
		runner.push(loop);
		assert.equal(budget.drain(), undefined);
		budget.begin();
		runner.push({ run: () => {} });
		assert.equal(budget.drain(), undefined, "the second call is still outstanding, and nothing was interrupted");
	});
});
