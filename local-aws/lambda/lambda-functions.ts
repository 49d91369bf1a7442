/**
 * @module The Lambda functions of one served template, by logical id: one {@link LambdaFunction} (one pool of
 * execution environments) per function, shared by everything that invokes it (the API's integrations and
 * authorizers, the stream mappings, the rules, the queue mappings), so that its `MemorySize`, `Timeout` and
 * pool bound apply once across them, and closing the template closes each once (README.md "Functions").
 */
import type { FunctionModel } from '../template/api-model.ts';
import { LambdaFunction, poolSize } from './lambda-runtime.ts';

/** The functions of a template, each built on first use and the same one after. */
export class LambdaFunctions {
  private readonly functions = new Map<string, LambdaFunction>();
  private readonly modelOf: (logicalId: string) => FunctionModel;
  private readonly environments: Readonly<Record<string, number>>;
  private closed = false;
  /** The deadline of {@link endBy}, epoch ms, given to every function built after it too. */
  private deadline: number | undefined;

  /**
   * `modelOf`: a function's model by logical id (throwing for one that cannot run); `environments`: the
   * execution environments a function needs at once, by logical id, when more than {@link poolSize} (the
   * batches its queue mappings run at once: none waits holding its messages).
   */
  constructor(modelOf: (logicalId: string) => FunctionModel, environments: Record<string, number> = {}) {
    this.modelOf = modelOf;
    this.environments = environments;
  }

  /**
   * The function with this logical id: built on the first call, the same one on every later call.
   * @throws the error of its model (a function the template cannot run), or Error once closed
   */
  get(logicalId: string): LambdaFunction {
    const known = this.functions.get(logicalId);
    if (known) return known;
    if (this.closed) throw new Error(`${logicalId} is closed`);
    const fn = new LambdaFunction(this.modelOf(logicalId), this.environments[logicalId] ?? poolSize);
    if (this.deadline !== undefined) fn.endBy(this.deadline);
    this.functions.set(logicalId, fn);
    return fn;
  }

  /** Retires every function's execution environments (see {@link LambdaFunction.recycle}). */
  recycle(): void {
    for (const fn of this.functions.values()) fn.recycle();
  }

  /**
   * No function starts an invocation that could not end by `deadline`, epoch ms (see
   * {@link LambdaFunction.endBy}): those built so far and those first used after.
   */
  endBy(deadline: number): void {
    this.deadline = deadline;
    for (const fn of this.functions.values()) fn.endBy(deadline);
  }

  /** Terminates every function's execution environments, once each; no function is built after. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.functions.values()].map((fn) => fn.close()));
  }
}
