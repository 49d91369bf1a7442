/**
 * Local Lambda functions, a pool of worker threads each: README.md "Functions";
 * behaviour.md S2-S7, S12.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { PassThrough, type Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { FunctionModel } from '../template/api-model.ts';
import { environmentErrorReport } from './function-modules.ts';
import type { AckMessage, InvokeMessage, WorkerData, WorkerMessage } from './lambda-worker.ts';

/** Lambda's synchronous invocation payload limit, in bytes (the event as JSON): 6 MB. */
export const maxRequestPayloadBytes = 6 * 1024 * 1024;
/** Lambda's buffered response payload limit, in bytes (the result as JSON), as its error message states it. */
export const maxResponsePayloadBytes = 6_291_556;
/**
 * Workers (execution environments) kept per function, unless its queue mappings run more batches at once;
 * further concurrent invocations wait for one.
 */
export const poolSize = 4;
/**
 * Each worker's young generation, in MB. Every execution environment shares this one process, and V8's own
 * default lets each grow its young generation to several times this before it settles, which the resident
 * memory of a long-running process shows as growth over its first thousands of requests; the
 * old generation stays capped by the function's MemorySize.
 */
const youngGenerationMb = 8;

/**
 * Lambda's limit on an on-demand execution environment's Init phase (runtime start and the function's static
 * code), in milliseconds: 10 s, apart from the function's Timeout. Past it, Lambda starts the Init phase again
 * at the first invocation, then bounded by the function's Timeout ("Init phase" of the Lambda developer guide's
 * "Understanding the Lambda execution environment lifecycle"; behaviour.md S13).
 */
export const initLimitMs = 10_000;

/**
 * Bytes of a streamed response a worker may have posted and not yet seen taken: past it the handler's writes
 * wait, so a function produces no faster than the client reads (README.md "Memory and shutdown").
 */
export const streamWindowBytes = 64 * 1024;

/** How an invocation ended, as Lambda reports it to API Gateway. */
export type InvokeOutcome =
  /** A buffered result: the handler's return value as JSON text. */
  | { type: 'result'; payload: string }
  /** A function error: thrown, timed out (`Sandbox.Timedout`), out of memory, or a payload over the limits. */
  | { type: 'error'; errorType: string; errorMessage: string }
  /** A response stream: the bytes the handler writes, prelude included; destroyed when the function fails. */
  | { type: 'stream'; body: Readable };

interface Pending {
  id: number;
  event: unknown;
  requestId: string;
  settle(outcome: InvokeOutcome): void;
  stream?: PassThrough;
  /** Bytes written to `stream` and not yet acknowledged to the worker (they wait for its `drain`). */
  unacknowledged: number;
  /** The function's Timeout, running from when the invocation's clock started (see Environment.startClock). */
  timer?: NodeJS.Timeout;
  /** Epoch milliseconds at which the invocation times out, once its clock started. */
  deadline?: number;
}

/**
 * One execution environment: a worker running one invocation at a time. Its Init phase (the worker importing
 * the function's module) is bounded by {@link initLimitMs}, apart from the Timeout; an invocation's Timeout runs
 * from when the module is ready. An Init phase past the limit is started again in a fresh worker, this time
 * within the waiting invocation's Timeout (a "suppressed init", behaviour.md S13).
 */
class Environment {
  worker: Worker;
  pending: Pending | undefined;
  dead = false;
  /** True once the worker's module is imported and its handler can be invoked. */
  private ready = false;
  /** True once the first Init phase ran past {@link initLimitMs}: the next one runs within the Timeout. */
  private initTimedOut = false;
  private readonly initTimer: NodeJS.Timeout;
  private nextId = 0;
  private readonly config: FunctionModel;
  private readonly onExit: (environment: Environment) => void;

  /** `onExit` runs once the environment can take no further invocation (timed out, crashed or exited). */
  constructor(config: FunctionModel, onExit: (environment: Environment) => void) {
    this.config = config;
    this.onExit = onExit;
    this.worker = this.startWorker();
    this.initTimer = setTimeout(() => this.restartInit(), initLimitMs);
  }

  /** A worker importing the function's module, its output forwarded and its messages and failures heard. */
  private startWorker(): Worker {
    const { config } = this;
    const data: WorkerData = {
      module: config.module,
      exportName: config.exportName,
      functionName: config.logicalId,
      memoryMb: config.memoryMb,
      streamWindowBytes,
    };
    const worker = new Worker(new URL('lambda-worker.ts', import.meta.url), {
      workerData: data,
      env: {
        PATH: process.env.PATH ?? '',
        AWS_LAMBDA_FUNCTION_NAME: config.logicalId,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(config.memoryMb),
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
        ...config.environment,
      },
      stdout: true,
      stderr: true,
      resourceLimits: {
        maxOldGenerationSizeMb: config.memoryMb,
        maxYoungGenerationSizeMb: youngGenerationMb,
      },
    });
    forwardLines(worker.stdout, process.stdout);
    forwardLines(worker.stderr, process.stderr);
    // A worker replaced by a second Init phase is no longer heard.
    worker.on('message', (message: WorkerMessage) => {
      if (worker === this.worker) this.receive(message);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (worker !== this.worker) return;
      const errorType =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'Runtime.OutOfMemory' : 'Runtime.ImportModuleError';
      process.stderr.write(environmentErrorReport(config.logicalId, errorType, error));
      this.retire();
      this.fail({ type: 'error', errorType, errorMessage: error.message });
    });
    worker.on('exit', () => {
      if (worker !== this.worker) return;
      this.retire();
      this.fail({ type: 'error', errorType: 'Runtime.ExitError', errorMessage: 'Runtime exited' });
    });
    return worker;
  }

  /**
   * The Init phase ran past {@link initLimitMs}: its worker is stopped and a fresh one imports the module again,
   * within the Timeout of the invocation waiting (or of the next one), as Lambda retries the Init phase.
   */
  private restartInit(): void {
    if (this.ready || this.dead) return;
    process.stdout.write(
      `${new Date().toISOString()} ${this.config.logicalId} INIT_REPORT Init Duration: ${initLimitMs.toFixed(2)} ms Phase: init Status: timeout\n`,
    );
    const stale = this.worker;
    this.initTimedOut = true;
    this.worker = this.startWorker();
    void stale.terminate();
    if (this.pending) this.startClock(this.pending);
  }

  /** Runs one invocation; resolves with its outcome (a stream resolves at its first bytes). */
  invoke(event: unknown): Promise<InvokeOutcome> {
    const id = ++this.nextId;
    return new Promise<InvokeOutcome>((resolve) => {
      let settled = false;
      const pending: Pending = {
        id,
        event,
        requestId: randomUUID(),
        unacknowledged: 0,
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          resolve(outcome);
        },
      };
      this.pending = pending;
      if (this.ready || this.initTimedOut) this.startClock(pending);
      if (this.ready) this.send(pending);
    });
  }

  /** Starts `pending`'s Timeout: the worker is stopped and the invocation fails (`Sandbox.Timedout`) at its end. */
  private startClock(pending: Pending): void {
    if (pending.timer) return;
    const timeoutMs = this.config.timeoutSeconds * 1000;
    const seconds = this.config.timeoutSeconds.toFixed(2);
    pending.deadline = Date.now() + timeoutMs;
    pending.timer = setTimeout(() => {
      process.stdout.write(
        `${new Date().toISOString()} ${pending.requestId} Task timed out after ${seconds} seconds\n`,
      );
      this.retire();
      void this.worker.terminate();
      this.fail({
        type: 'error',
        errorType: 'Sandbox.Timedout',
        errorMessage: `Task timed out after ${seconds} seconds`,
      });
    }, timeoutMs);
  }

  /** Hands `pending` to the worker, whose module is ready. */
  private send(pending: Pending): void {
    const message: InvokeMessage = {
      type: 'invoke',
      id: pending.id,
      event: pending.event,
      requestId: pending.requestId,
      deadline: pending.deadline as number,
    };
    this.worker.postMessage(message);
  }

  /**
   * Takes this environment out of service before its invocation is settled, so that a timed-out or crashed
   * environment is never handed to another invocation: the next one gets a fresh environment (a cold start), as
   * Lambda does after `Sandbox.Timedout` or a runtime exit (behaviour.md S12).
   */
  private retire(): void {
    if (this.dead) return;
    this.dead = true;
    this.onExit(this);
  }

  /** Tells the worker that `pending`'s unacknowledged bytes have left. */
  private acknowledge(pending: Pending): void {
    const message: AckMessage = { type: 'ack', id: pending.id, bytes: pending.unacknowledged };
    pending.unacknowledged = 0;
    if (this.pending === pending) this.worker.postMessage(message);
  }

  private done(): void {
    if (this.pending) clearTimeout(this.pending.timer);
    this.pending = undefined;
  }

  /** Ends the current invocation with a function error (a stream already started is destroyed). */
  private fail(outcome: InvokeOutcome & { type: 'error' }): void {
    const pending = this.pending;
    if (!pending) return;
    this.done();
    if (pending.stream) pending.stream.destroy(new Error(outcome.errorMessage));
    else pending.settle(outcome);
  }

  private receive(message: WorkerMessage): void {
    if (message.type === 'ready') {
      this.ready = true;
      clearTimeout(this.initTimer);
      if (this.pending) {
        this.startClock(this.pending);
        this.send(this.pending);
      }
      return;
    }
    const pending = this.pending;
    if (!pending || pending.id !== message.id) return;
    if (message.type === 'chunk') {
      if (!pending.stream) {
        pending.stream = new PassThrough();
        pending.settle({ type: 'stream', body: pending.stream });
      }
      // Acknowledged once the stream has room (at once, or at its next drain): the worker's window of
      // unacknowledged bytes carries the client's pace back to the handler.
      const waiting = pending.unacknowledged > 0;
      pending.unacknowledged += message.data.byteLength;
      if (pending.stream.write(message.data) && !waiting) this.acknowledge(pending);
      else if (!waiting) pending.stream.once('drain', () => this.acknowledge(pending));
      return;
    }
    if (message.type === 'end') {
      this.done();
      if (pending.stream) pending.stream.end();
      else pending.settle({ type: 'stream', body: new PassThrough().end() });
      return;
    }
    if (message.type === 'error') {
      this.fail(message);
      return;
    }
    this.done();
    if (Buffer.byteLength(message.payload) > maxResponsePayloadBytes) {
      pending.settle({
        type: 'error',
        errorType: 'Function.ResponseSizeTooLarge',
        errorMessage: `Response payload size exceeded maximum allowed payload size (${maxResponsePayloadBytes} bytes).`,
      });
      return;
    }
    pending.settle(message);
  }
}

/** Copies a worker's output to `target` one whole line at a time, so lines of two workers never mix. */
function forwardLines(source: Readable, target: NodeJS.WriteStream): void {
  createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    target.write(`${line}\n`);
  });
}

/** Thrown by {@link LambdaFunction.invoke} for an invocation that could not end before its deadline: it never ran. */
export class TooLateToStart extends Error {}

/**
 * A local Lambda function: a few worker threads, one invocation each at a time, each with its own environment
 * and module instance, heap capped at MemorySize, Timeout enforced, the 6 MB payload limits applied.
 */
export class LambdaFunction {
  private readonly environments = new Set<Environment>();
  private readonly claimed = new Set<Environment>();
  private readonly retired = new Set<Environment>();
  private readonly waiting: {
    resolve: (environment: Environment) => void;
    reject: (error: Error) => void;
  }[] = [];
  private closed = false;
  /** The time (epoch ms) by which every invocation must have ended, set by {@link LambdaFunction.endBy}. */
  private deadline = Number.POSITIVE_INFINITY;

  readonly config: FunctionModel;
  /** Execution environments at most: {@link poolSize}, or more for the batches its queue mappings run at once. */
  private readonly size: number;

  constructor(config: FunctionModel, environments = poolSize) {
    this.config = config;
    this.size = Math.max(poolSize, environments);
  }

  /**
   * Invokes the function with `event` (a JSON-serialisable value) as a synchronous (RequestResponse) call.
   * An event over {@link maxRequestPayloadBytes} is refused before any code runs (`RequestTooLarge`).
   */
  async invoke(event: unknown): Promise<InvokeOutcome> {
    if (Buffer.byteLength(JSON.stringify(event)) > maxRequestPayloadBytes) {
      return {
        type: 'error',
        errorType: 'RequestTooLarge',
        errorMessage: `Request must be smaller than ${maxRequestPayloadBytes} bytes for the InvokeFunction operation`,
      };
    }
    const environment = await this.acquire();
    if (Date.now() + this.config.timeoutSeconds * 1000 > this.deadline) {
      this.release(environment);
      throw new TooLateToStart(`${this.config.logicalId} could not end before the shutdown's deadline`);
    }
    try {
      const outcome = await environment.invoke(event);
      if (outcome.type === 'stream') outcome.body.once('close', () => this.release(environment));
      else this.release(environment);
      return outcome;
    } catch (error) {
      this.release(environment);
      throw error;
    }
  }

  /** An idle environment, a new one while the pool has room, else the next one released. */
  private acquire(): Promise<Environment> {
    if (this.closed) return Promise.reject(new Error(`${this.config.logicalId} is closed`));
    let environment = [...this.environments].find((e) => !e.dead && !this.claimed.has(e));
    if (!environment && this.environments.size < this.size) {
      environment = new Environment(this.config, (exited) => this.environments.delete(exited));
      this.environments.add(environment);
    }
    if (!environment) return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.claimed.add(environment);
    return Promise.resolve(environment);
  }

  private release(environment: Environment): void {
    this.claimed.delete(environment);
    if (this.retired.delete(environment)) void environment.worker.terminate();
    const next = this.waiting.shift();
    if (next) void this.acquire().then(next.resolve, next.reject);
  }

  /**
   * Retires every execution environment: idle ones end now, busy ones after their invocation; the next
   * invocations start fresh ones (new module instances: a changed handler is imported afresh).
   */
  recycle(): void {
    for (const environment of this.environments) {
      this.environments.delete(environment);
      if (this.claimed.has(environment)) this.retired.add(environment);
      else void environment.worker.terminate();
    }
  }

  /**
   * From now on an invocation starts only if its Timeout ends by `deadline` (epoch ms); one that could not is
   * never run and its `invoke` throws {@link TooLateToStart}. So no invocation is running at `deadline`, when a
   * shutdown cuts the connections still open (README.md "Memory and shutdown").
   */
  endBy(deadline: number): void {
    this.deadline = Math.min(this.deadline, deadline);
  }

  /** Terminates every execution environment; invocations still waiting for one fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0))
      waiter.reject(new Error(`${this.config.logicalId} is closed`));
    await Promise.all([...this.environments].map((environment) => environment.worker.terminate()));
    this.environments.clear();
  }
}
