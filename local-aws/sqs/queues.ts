/**
 * @module Local SQS standard queues: visibility timeout, delays, receive counts, retention, redrive to a
 * dead-letter queue and fair receives by message group, held in memory and, given a journal, written through
 * to the embedded store before each answer (README.md "Events and queues"; behaviour.md
 * Q1-Q10).
 * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html
 * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html
 * @see https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues.html
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { JournalEntry, QueueJournal } from './queue-journal.ts';
import type { QueueMessage } from './queue-message.ts';

/** Half-life, in ms, of a tenant's recent consumer time in a fair queue. */
const usageHalfLifeMs = 10_000;

/** A tenant's recent consumer time: messages processed and their ms from receive to delete, decayed. */
interface Usage {
  ms: number;
  messages: number;
  /** Epoch ms of the last update. */
  at: number;
}

/** The SQS errors the queues raise, by their JSON protocol `__type` (`com.amazonaws.sqs#<name>`). */
export class SqsError extends Error {
  readonly type: string;
  /** `x-amzn-query-error` code (SQS's query-protocol error code, which the SDK reports as `Code`). */
  readonly queryCode: string;
  constructor(type: string, queryCode: string, message: string) {
    super(message);
    this.type = type;
    this.queryCode = queryCode;
  }
}

/** How a queue is declared (`AWS::SQS::Queue`), with CloudFormation's defaults filled in. */
export interface QueueSettings {
  /** Logical id of the `AWS::SQS::Queue`. */
  logicalId: string;
  /** `QueueName`, else the logical id. */
  name: string;
  /** `VisibilityTimeout` in seconds (default 30). */
  visibilityTimeoutSeconds: number;
  /** `MessageRetentionPeriod` in seconds (default 345600, 4 days). */
  retentionSeconds: number;
  /** `DelaySeconds` (default 0). */
  delaySeconds: number;
  /** `RedrivePolicy`: the dead-letter queue's logical id and `maxReceiveCount`. */
  redrive?: { deadLetterQueueId: string; maxReceiveCount: number };
}

/** Longest visibility timeout SQS allows, in seconds (12 hours). */
export const maxVisibilityTimeoutSeconds = 43_200;
/** Longest per-message delay, in seconds (15 minutes). */
export const maxDelaySeconds = 900;
/** Longest long-poll wait, in seconds. */
export const maxWaitTimeSeconds = 20;

/** A received message: the message and the receipt handle of this receive. */
export interface Received {
  message: QueueMessage;
  receiptHandle: string;
}

/**
 * One local standard queue. Its messages live in this process's memory; with a journal every change of them
 * (send, receive, visibility change, delete, redrive, expiry) is also written to the journal, and an operation
 * answers only once its change is written, as SQS acknowledges a message only once it is stored.
 */
export class LocalQueue {
  readonly settings: QueueSettings;
  readonly url: string;
  readonly arn: string;
  /** The dead-letter queue, once {@link LocalQueues} has linked it. */
  deadLetterQueue: LocalQueue | undefined;
  private readonly messages = new Map<string, QueueMessage>();
  /** The recent consumer time of each tenant (message group) of a fair queue. */
  private readonly usage = new Map<string, Usage>();
  /** The recent consumer time of every tenant together: a new tenant's mean until it has one of its own. */
  private overall: Usage | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly journal: QueueJournal | undefined;
  private closed = false;

  constructor(
    settings: QueueSettings,
    endpoint: string,
    region: string,
    account: string,
    journal?: QueueJournal,
  ) {
    this.settings = settings;
    this.url = `${endpoint}/${account}/${settings.name}`;
    this.arn = `arn:aws:sqs:${region}:${account}:${settings.name}`;
    this.journal = journal;
  }

  /** Writes `entries` to the journal (resolves at once without one or without entries). */
  private persist(entries: JournalEntry[]): Promise<void> {
    if (!this.journal || entries.length === 0) return Promise.resolve();
    return this.journal.write(entries);
  }

  private put(message: QueueMessage): JournalEntry {
    return { type: 'put', queueName: this.settings.name, message };
  }

  private removal(message: QueueMessage): JournalEntry {
    return { type: 'del', queueName: this.settings.name, messageId: message.messageId };
  }

  /** Loads the messages the journal keeps for this queue (a restart), oldest sent first. */
  async restore(): Promise<void> {
    if (!this.journal) return;
    const kept = await this.journal.messages(this.settings.name);
    kept.sort((a, b) => a.sentTimestamp - b.sentTimestamp);
    for (const message of kept) this.messages.set(message.messageId, message);
  }

  /**
   * Enqueues `body`; `delaySeconds` (0-900) overrides the queue's `DelaySeconds`. Resolves once the message is
   * written to the journal.
   * @throws SqsError InvalidParameterValue for an empty body, a delay out of range or a malformed
   *   `messageGroupId`; the journal's error
   */
  async send(
    body: string,
    options: {
      delaySeconds?: number;
      senderId?: string;
      messageGroupId?: string;
    } = {},
  ): Promise<QueueMessage> {
    if (body.length === 0)
      throw invalidParameter('The request must contain the parameter MessageBody.', 'MissingParameter');
    const delay = options.delaySeconds ?? this.settings.delaySeconds;
    if (!Number.isInteger(delay) || delay < 0 || delay > maxDelaySeconds) {
      throw invalidParameter(
        `Value ${delay} for parameter DelaySeconds is invalid. Reason: must be between 0 and ${maxDelaySeconds}.`,
      );
    }
    const group = options.messageGroupId;
    if (group !== undefined && !/^[!-~]{1,128}$/.test(group)) {
      throw invalidParameter(
        `Value ${group} for parameter MessageGroupId is invalid. Reason: must be 1 to 128 alphanumeric or punctuation characters.`,
      );
    }
    const now = Date.now();
    const message: QueueMessage = {
      messageId: randomUUID(),
      body,
      md5OfBody: createHash('md5').update(body).digest('hex'),
      sentTimestamp: now,
      receiveCount: 0,
      visibleAt: now + delay * 1000,
      senderId: options.senderId ?? 'local',
      ...(group !== undefined && { messageGroupId: group }),
    };
    this.messages.set(message.messageId, message);
    await this.persist([this.put(message)]);
    this.wake();
    return message;
  }

  /**
   * Puts a message redriven from a source queue: its id, body, attributes and `SentTimestamp` are kept.
   * @returns its journal entry, to be written in one batch with its removal from the source
   */
  private adopt(message: QueueMessage): JournalEntry {
    const { receiptHandle: _, firstReceiveTimestamp: __, receivedAt: ___, ...rest } = message;
    const adopted = { ...rest, receiveCount: 0, visibleAt: Date.now() };
    this.messages.set(message.messageId, adopted);
    this.wake();
    return this.put(adopted);
  }

  /**
   * Receives up to `max` visible messages, oldest first and fairly by message group (see {@link take}), waiting up to `waitSeconds` for the first (long
   * polling) unless `signal` aborts. Each gets a new receipt handle, one more receive, and is invisible for
   * `visibilityTimeoutSeconds` (default the queue's). A message that would be received more than the redrive
   * policy's `maxReceiveCount` times is moved to the dead-letter queue instead. Resolves once the receives
   * (and the moves) are written to the journal, so that a restart keeps their receive counts and visibility.
   * @throws SqsError InvalidParameterValue for a visibility timeout out of 0-43200; the journal's error
   */
  async receive(options: {
    max: number;
    waitSeconds: number;
    visibilityTimeoutSeconds?: number;
    signal?: AbortSignal;
  }): Promise<Received[]> {
    const visibility = options.visibilityTimeoutSeconds;
    if (
      visibility !== undefined &&
      (!Number.isInteger(visibility) || visibility < 0 || visibility > maxVisibilityTimeoutSeconds)
    ) {
      throw invalidParameter(
        `Value ${visibility} for parameter VisibilityTimeout is invalid. Reason: must be between 0 and ${maxVisibilityTimeoutSeconds}.`,
      );
    }
    const deadline = Date.now() + options.waitSeconds * 1000;
    for (;;) {
      const { taken, entries } = this.take(options.max, options.visibilityTimeoutSeconds);
      await this.persist(entries);
      const remaining = deadline - Date.now();
      if (taken.length > 0 || remaining <= 0 || options.signal?.aborted || this.closed) return taken;
      await this.nextChange(Math.min(remaining, this.untilNextVisible()), options.signal);
    }
  }

  /** `usage` decayed to `now`. */
  private static decayed(usage: Usage | undefined, now: number): Usage {
    if (!usage) return { ms: 0, messages: 0, at: now };
    const factor = 0.5 ** ((now - usage.at) / usageHalfLifeMs);
    return { ms: usage.ms * factor, messages: usage.messages * factor, at: now };
  }

  /** Counts the consumer time of `message`'s receive that now ends (deleted, or its visibility changed). */
  private processed(message: QueueMessage, now: number): void {
    const group = message.messageGroupId;
    if (group === undefined || message.receivedAt === undefined) return;
    const ms = Math.max(0, now - message.receivedAt);
    const usage = LocalQueue.decayed(this.usage.get(group), now);
    const overall = LocalQueue.decayed(this.overall, now);
    for (const kept of [usage, overall]) {
      kept.ms += ms;
      kept.messages += 1;
    }
    this.usage.set(group, usage);
    this.overall = overall;
    message.receivedAt = undefined;
  }

  /**
   * Takes up to `max` visible messages, fairly by tenant (a fair queue, behaviour.md Q10). A tenant (message
   * group) is charged the consumer time its messages in flight and its next one would take: its recent mean
   * time per message (receive to delete, decayed with a half-life of 10 s; a new tenant: that of every tenant
   * together) times its messages in flight plus one. Each next message is the oldest of the least charged tenant, and taking it charges its tenant one more
   * message in flight. So a tenant whose messages take long, or that holds many in flight, waits while a quiet
   * tenant's messages go first, never first come first served; a message without a group is a tenant of its
   * own, and without groups this is oldest first. `entries`: the journal entries of what it changed.
   */
  private take(
    max: number,
    visibilityTimeoutSeconds?: number,
  ): { taken: Received[]; entries: JournalEntry[] } {
    const now = Date.now();
    const entries: JournalEntry[] = [];
    const inFlight = new Map<string, number>();
    const visible: QueueMessage[] = [];
    const redrive = this.settings.redrive;
    for (const message of this.messages.values()) {
      if (now - message.sentTimestamp > this.settings.retentionSeconds * 1000) {
        this.messages.delete(message.messageId);
        entries.push(this.removal(message));
        continue;
      }
      const group = message.messageGroupId;
      if (message.visibleAt > now) {
        if (group !== undefined && message.receiveCount > 0)
          inFlight.set(group, (inFlight.get(group) ?? 0) + 1);
        continue;
      }
      if (redrive && this.deadLetterQueue && message.receiveCount >= redrive.maxReceiveCount) {
        this.messages.delete(message.messageId);
        entries.push(this.removal(message), this.deadLetterQueue.adopt(message));
        continue;
      }
      visible.push(message);
    }
    /**
     * A tenant's charge: its recent mean time per message (a new tenant's: every tenant's), for each message in
     * flight and the next one.
     */
    const overall = LocalQueue.decayed(this.overall, now);
    const overallMean = overall.messages > 0 ? overall.ms / overall.messages : 0;
    const charge = (group: string | undefined): number => {
      if (group === undefined) return 0;
      const usage = LocalQueue.decayed(this.usage.get(group), now);
      const mean = usage.messages > 0 ? usage.ms / usage.messages : overallMean;
      return mean * ((inFlight.get(group) ?? 0) + 1);
    };
    const taken: Received[] = [];
    while (taken.length < max && visible.length > 0) {
      let best = 0;
      let least = charge((visible[0] as QueueMessage).messageGroupId);
      for (let index = 1; index < visible.length && least > 0; index += 1) {
        const candidate = charge((visible[index] as QueueMessage).messageGroupId);
        if (candidate < least) {
          best = index;
          least = candidate;
        }
      }
      const [message] = visible.splice(best, 1) as [QueueMessage];
      const group = message.messageGroupId;
      if (group !== undefined) inFlight.set(group, (inFlight.get(group) ?? 0) + 1);
      const receiptHandle = randomBytes(24).toString('base64url');
      message.receiptHandle = receiptHandle;
      message.receiveCount += 1;
      message.firstReceiveTimestamp ??= now;
      message.receivedAt = now;
      message.visibleAt = now + (visibilityTimeoutSeconds ?? this.settings.visibilityTimeoutSeconds) * 1000;
      taken.push({ message: { ...message }, receiptHandle });
      entries.push(this.put(message));
    }
    return { taken, entries };
  }

  /** Milliseconds until the next invisible message becomes visible (at most one long poll). */
  private untilNextVisible(): number {
    let next = maxWaitTimeSeconds * 1000;
    const now = Date.now();
    for (const message of this.messages.values()) {
      if (message.visibleAt > now) next = Math.min(next, message.visibleAt - now);
    }
    return next;
  }

  private nextChange(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** The message whose latest receive gave `receiptHandle`; undefined for a stale or unknown handle. */
  private byHandle(receiptHandle: string): QueueMessage | undefined {
    for (const message of this.messages.values()) {
      if (message.receiptHandle === receiptHandle) return message;
    }
    return undefined;
  }

  /**
   * Deletes the message of `receiptHandle`. A handle of a message already deleted, or of an earlier receive,
   * succeeds without deleting anything (SQS: "the request succeeds, but the message might not be deleted").
   * Resolves once the removal is written to the journal.
   * @throws SqsError ReceiptHandleIsInvalid for an empty handle; the journal's error
   */
  async delete(receiptHandle: string): Promise<void> {
    if (!receiptHandle) throw receiptHandleInvalid(receiptHandle);
    const message = this.byHandle(receiptHandle);
    if (!message) return;
    this.processed(message, Date.now());
    this.messages.delete(message.messageId);
    await this.persist([this.removal(message)]);
  }

  /**
   * Makes the message of `receiptHandle` visible again `seconds` from now (0-43200); resolves once that is
   * written to the journal.
   * @throws SqsError MessageNotInflight when that receive's visibility timeout has already ended or the
   *   handle is not the latest; InvalidParameterValue for `seconds` out of range; the journal's error
   */
  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > maxVisibilityTimeoutSeconds) {
      throw invalidParameter(
        `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: must be between 0 and ${maxVisibilityTimeoutSeconds}.`,
      );
    }
    if (!receiptHandle) throw receiptHandleInvalid(receiptHandle);
    const message = this.byHandle(receiptHandle);
    if (!message || message.visibleAt <= Date.now()) {
      throw new SqsError(
        'MessageNotInflight',
        'AWS.SimpleQueueService.MessageNotInflight',
        'Message does not exist or is not available for visibility timeout change.',
      );
    }
    this.processed(message, Date.now());
    message.visibleAt = Date.now() + seconds * 1000;
    await this.persist([this.put(message)]);
    if (seconds === 0) this.wake();
  }

  /** `ApproximateNumberOfMessages` (visible now), `...NotVisible` (in flight) and `...Delayed`. */
  counts(): { visible: number; notVisible: number; delayed: number } {
    const now = Date.now();
    let visible = 0;
    let notVisible = 0;
    let delayed = 0;
    for (const message of this.messages.values()) {
      if (message.visibleAt <= now) visible += 1;
      else if (message.receiveCount > 0) notVisible += 1;
      else delayed += 1;
    }
    return { visible, notVisible, delayed };
  }

  /** Ends every long poll now and every later one at once (the template is being closed). */
  close(): void {
    this.closed = true;
    this.wake();
  }
}

function invalidParameter(message: string, type = 'InvalidParameterValue'): SqsError {
  return new SqsError(type, `AWS.SimpleQueueService.${type}`, message);
}

function receiptHandleInvalid(receiptHandle: string): SqsError {
  return new SqsError(
    'ReceiptHandleIsInvalid',
    'ReceiptHandleIsInvalid',
    `The input receipt handle "${receiptHandle}" is not a valid receipt handle.`,
  );
}

/** The queues of a template, findable by logical id, name, URL or ARN. */
export class LocalQueues {
  private readonly byLogicalId = new Map<string, LocalQueue>();

  /**
   * Creates every queue and links each redrive policy to its dead-letter queue; with `journal` their messages
   * are kept there too (call {@link restore} before use).
   * @throws for an unknown DLQ
   */
  constructor(
    settings: QueueSettings[],
    endpoint: string,
    region: string,
    account: string,
    journal?: QueueJournal,
  ) {
    for (const queue of settings)
      this.byLogicalId.set(queue.logicalId, new LocalQueue(queue, endpoint, region, account, journal));
    for (const queue of this.byLogicalId.values()) {
      const redrive = queue.settings.redrive;
      if (!redrive) continue;
      const target = this.byLogicalId.get(redrive.deadLetterQueueId);
      if (!target)
        throw new Error(
          `template: ${queue.settings.logicalId}: RedrivePolicy names no queue of the template`,
        );
      queue.deadLetterQueue = target;
    }
  }

  /** Loads every queue's messages kept in the journal (see {@link LocalQueue.restore}). */
  async restore(): Promise<void> {
    for (const queue of this.all()) await queue.restore();
  }

  /** Every queue. */
  all(): LocalQueue[] {
    return [...this.byLogicalId.values()];
  }

  /** The queue with this logical id, name, URL or ARN; undefined when none. */
  find(reference: string): LocalQueue | undefined {
    const direct = this.byLogicalId.get(reference);
    if (direct) return direct;
    return this.all().find(
      (queue) => queue.settings.name === reference || queue.url === reference || queue.arn === reference,
    );
  }

  /**
   * The queue of a request's `QueueUrl`: matched by its last path segment (the name), so a URL with another
   * host (`localhost` for `127.0.0.1`) still finds it.
   * @throws SqsError QueueDoesNotExist
   */
  byUrl(queueUrl: unknown): LocalQueue {
    const name = typeof queueUrl === 'string' ? queueUrl.split('/').pop() : undefined;
    const queue = name ? this.all().find((candidate) => candidate.settings.name === name) : undefined;
    if (!queue) {
      throw new SqsError(
        'QueueDoesNotExist',
        'AWS.SimpleQueueService.NonExistentQueue',
        'The specified queue does not exist.',
      );
    }
    return queue;
  }

  /** Ends every long poll (see {@link LocalQueue.close}). */
  close(): void {
    for (const queue of this.all()) queue.close();
  }
}
