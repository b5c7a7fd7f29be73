// Per-user interactive sessions (issue 13): one task per user at a time on the service's one Chromium. A task is a
// guarded context (guarded-context.ts: every request through the outbound guard) opened with the user's profile
// (profiles.ts), and its page (a popup the page opens becomes the current page). A user's steps run one at a time,
// each within the step time limit, and each answers with a fresh snapshot (snapshot.ts). The profile is saved after
// every step and when the task closes. Limits: the users with a task at once (busy), a task's pages and its active
// time — the time since it opened, time waiting for its user excluded — (task_limit, the task closed), and a task
// with no step for a while is closed.
import type { Page } from 'playwright-core';

import type { OutboundGuard } from '../outbound';
import type { ChromiumHost } from './chromium';
import { clickedForm, requireClickedForm } from './clicked-form';
import type { SessionSettings } from './config';
import { openGuardedContext, type GuardedContext } from './guarded-context';
import { ProfileStore, ProfileUnreadableError, type StorageState } from './profiles';
import type {
  SessionClickTarget,
  SessionClosed,
  SessionPage,
  SessionScreenshot,
  SessionTask,
  SessionTaskList,
} from './protocol';
import { firstLine, HUNG_GRACE_MS, loadPage, RenderError, unlessHung, type LoadLimits } from './render';
import { ServiceError } from './service-error';
import { clickElement, fillField, selectOption, type StepTarget } from './session-actions';
import { redactSecrets, SECRET_ATTRIBUTE, takeSnapshot } from './snapshot';
import { TIMED_OUT, within } from './time-limit';

export interface SessionManagerOptions {
  chromium: ChromiumHost;
  guard: OutboundGuard;
  settings: SessionSettings;
  /** A step's time limit (the render's, ASSISTANT_BROWSER_RENDER_TIMEOUT_MS). */
  stepMs: number;
  /** The most bytes one step may load. */
  maxBytes: number;
  maxRedirects: number;
  /** Never a URL, a value or a user id. */
  log: (line: string) => void;
}

export interface FillInput {
  ref: number;
  value: string;
  secret: boolean;
  sites?: string[];
}

const VIEWPORT = { width: 1280, height: 800 };
/** The longest a profile may take to be read out of Chromium. */
const SAVE_MS = 5_000;
/** A popup's opener stays open (a sign-in popup may report back to it); older pages are closed. */
const MAX_OPEN_PAGES = 3;
/** Steps of one user waiting behind the running one; more are answered busy. */
const MAX_WAITING_STEPS = 4;
const MAX_REFUSAL_EXAMPLES = 5;
/** A page whose sub-resources hang is taken as it is after this long (its DOM is there). */
const LOAD_EVENT_MS = 10_000;

class Task {
  pages = 0;
  codesTyped = 0;
  /** The ref of the code field in the last snapshot, if it had one. */
  codeRef: number | undefined;
  /** Values typed as secrets or into password fields: never shown in a snapshot. */
  readonly secrets = new Set<string>();
  closed = false;
  idleTimer: NodeJS.Timeout | undefined;
  lastStepAt = Date.now();
  private activeBefore = 0;
  private runningSince: number | undefined = Date.now();

  constructor(
    readonly user: string,
    readonly guarded: GuardedContext,
    readonly controller: AbortController,
  ) {}

  activeMs(now = Date.now()): number {
    return this.activeBefore + (this.runningSince === undefined ? 0 : now - this.runningSince);
  }

  /** The task waits for its user: the clock stops until the next step. */
  pause(): void {
    this.activeBefore = this.activeMs();
    this.runningSince = undefined;
  }

  get waiting(): boolean {
    return this.runningSince === undefined;
  }

  resume(): void {
    this.runningSince ??= Date.now();
  }

  /** The page steps act on: the newest open one (a popup), a blank one when none is left. */
  async page(): Promise<Page> {
    const open = this.guarded.context.pages().filter((page) => !page.isClosed());
    for (const old of open.slice(0, -MAX_OPEN_PAGES)) await old.close().catch(() => undefined);
    return open.at(-1) ?? (await this.guarded.context.newPage());
  }
}

export class SessionManager {
  private readonly tasks = new Map<string, Task>();
  private readonly queues = new Map<string, { tail: Promise<void>; pending: number }>();
  /** Why the service closed a user's last task itself, for the next step's no_session message. */
  private readonly closedBecause = new Map<string, string>();
  private readonly profiles: ProfileStore;
  private opening = 0;
  private shuttingDown = false;

  constructor(private readonly options: SessionManagerOptions) {
    this.profiles = new ProfileStore(options.settings.profilesDir);
  }

  /** Tasks open now. */
  get count(): number {
    return this.tasks.size;
  }

  /** Starts the user's task if none is open, else navigates within it. */
  open(user: string, url: string): Promise<SessionPage> {
    return this.serialised(user, async () => {
      const existing = this.liveTask(user);
      const task = existing ?? (await this.start(user));
      try {
        return await this.run(task, 'open', async (target, remaining) => {
          if (task.pages >= this.options.settings.maxPages) throw await this.limitReached(task, 'pages');
          await loadPage(target.page, url, target.record, this.loadLimits(), remaining);
          task.pages += 1;
          return await this.read(task, remaining);
        });
      } catch (error) {
        if (!existing && task.pages === 0) await this.closeTask(task); // a task whose first page failed is not kept
        throw error;
      }
    });
  }

  snapshot(user: string): Promise<SessionPage> {
    return this.pageStep(user, 'snapshot', async () => undefined);
  }

  fill(user: string, input: FillInput): Promise<SessionPage> {
    return this.pageStep(user, 'fill', async (task, target, remaining) => {
      const isCode = input.ref === task.codeRef;
      if (input.secret) task.secrets.add(input.value);
      const { password } = await fillField(target.page, input.ref, input, remaining);
      if (password) task.secrets.add(input.value);
      if (isCode) task.codesTyped += 1;
    });
  }

  /** What a click on the element would send, without clicking. */
  clickTarget(user: string, ref: number): Promise<SessionClickTarget> {
    return this.serialised(user, () => {
      const task = this.taskOf(user);
      return this.run(task, 'click-target', async (target) => ({ ref, form: await clickedForm(target.page, ref) }));
    });
  }

  /** Clicks; with `expectForm`, only when the element still sends that form ("" for none). */
  click(user: string, ref: number, expectForm?: string): Promise<SessionPage> {
    return this.pageStep(user, 'click', async (task, target, remaining) => {
      if (expectForm !== undefined) await requireClickedForm(target.page, ref, expectForm);
      await this.countPages(task, await clickElement(target, ref, this.loadLimits(), remaining));
    });
  }

  select(user: string, ref: number, option: string): Promise<SessionPage> {
    return this.pageStep(user, 'select', async (task, target, remaining) => {
      await this.countPages(task, await selectOption(target, ref, option, this.loadLimits(), remaining));
    });
  }

  /** A PNG of the viewport (fields filled with a secret masked), with the snapshot. */
  screenshot(user: string): Promise<SessionScreenshot> {
    return this.serialised(user, () => {
      const task = this.taskOf(user);
      return this.run(task, 'screenshot', async (target, remaining) => {
        const png = await target.page.screenshot({
          type: 'png',
          timeout: Math.max(1, remaining()),
          mask: [target.page.locator(`[${SECRET_ATTRIBUTE}]`)],
        });
        return { page: await this.read(task, remaining), png: png.toString('base64') };
      });
    });
  }

  /** The task waits for its user (a code, an answer): its clock stops until the next step. */
  wait(user: string): Promise<SessionTask> {
    return this.serialised(user, async () => {
      const task = this.taskOf(user);
      task.pause();
      this.stepDone(task);
      this.options.log('session waits for its user');
      return this.taskInfo(task);
    });
  }

  close(user: string): Promise<SessionClosed> {
    return this.serialised(user, async () => {
      const task = this.tasks.get(user);
      this.closedBecause.delete(user);
      if (!task) return { closed: false };
      await this.closeTask(task);
      return { closed: true };
    });
  }

  /** The tasks open now, by user. */
  list(): SessionTaskList {
    return {
      tasks: [...this.tasks.values()].map((task) => ({
        user: task.user,
        waiting: task.waiting,
        ...this.taskInfo(task),
      })),
    };
  }

  /** Saves and closes every task (the service stops); no task opens afterwards. */
  async closeAll(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.tasks.values()].map((task) => this.closeTask(task, 'the browser service stopped')));
  }

  private pageStep(
    user: string,
    name: string,
    action: (task: Task, target: StepTarget, remaining: () => number) => Promise<void>,
  ): Promise<SessionPage> {
    return this.serialised(user, () => {
      const task = this.taskOf(user);
      return this.run(task, name, async (target, remaining) => {
        await action(task, target, remaining);
        return await this.read(task, remaining);
      });
    });
  }

  /** One step: the clock and its limit, the step's time limit, errors as ServiceErrors, then the profile saved. */
  private async run<T>(
    task: Task,
    name: string,
    work: (target: StepTarget, remaining: () => number) => Promise<T>,
  ): Promise<T> {
    const started = Date.now();
    const deadline = started + this.options.stepMs;
    const remaining = () => Math.max(0, deadline - Date.now());
    clearTimeout(task.idleTimer);
    task.resume();
    try {
      if (task.activeMs() > this.options.settings.maxActiveMs) throw await this.limitReached(task, 'time');
      const record = task.guarded.record;
      record.bytes = 0; // the byte budget is per step
      record.refused.length = 0;
      record.budgetExhausted = false;
      const target = { context: task.guarded.context, page: await task.page(), record };
      const result = await unlessHung(work(target, remaining), remaining(), 'the page stopped responding');
      this.options.log(`session ${name} ok in ${Date.now() - started} ms (${task.pages} pages in the task)`);
      return result;
    } catch (error) {
      const failure = await this.asServiceError(task, error, name === 'open', deadline);
      this.options.log(`session ${name} ${failure.code} in ${Date.now() - started} ms`);
      throw failure;
    } finally {
      if (!task.closed) {
        await this.save(task);
        this.stepDone(task);
      }
    }
  }

  private async asServiceError(task: Task, error: unknown, opening: boolean, deadline: number): Promise<ServiceError> {
    if (error instanceof ServiceError) return error;
    if (error instanceof RenderError) {
      if (error.code === 'timeout' && Date.now() >= deadline + HUNG_GRACE_MS) {
        await this.closeTask(task, 'its page stopped responding', { save: false }); // saved after the last step
        return new ServiceError('timeout', `${error.message}; the task was closed (its cookies are kept)`);
      }
      return new ServiceError(error.code, error.message, error.code === 'refused' && opening ? 'url' : undefined);
    }
    if (task.closed || !task.guarded.context.browser()?.isConnected()) {
      return new ServiceError('no_session', 'the task was closed while the step ran (the browser stopped?)');
    }
    if (Date.now() >= deadline) return new ServiceError('timeout', 'the step did not finish within its time limit');
    return new ServiceError('failed', `the step failed: ${firstLine(error)}`);
  }

  /** The snapshot of the task's current page, with the task's counters; secrets hidden. */
  private async read(task: Task, remaining: () => number): Promise<SessionPage> {
    const page = await task.page();
    const snapshot = redactSecrets(await takeSnapshot(page, remaining()), task.secrets);
    task.codeRef = snapshot.codeField?.ref;
    const { refused } = task.guarded.record;
    return {
      ...snapshot,
      task: this.taskInfo(task),
      refused: { count: refused.length, examples: refused.slice(0, MAX_REFUSAL_EXAMPLES) },
    };
  }

  private taskInfo(task: Task): SessionTask {
    const { maxPages, maxActiveMs } = this.options.settings;
    return { pages: task.pages, maxPages, activeMs: task.activeMs(), maxActiveMs, codesTyped: task.codesTyped };
  }

  private loadLimits(): LoadLimits {
    return { maxRedirects: this.options.maxRedirects, loadMs: LOAD_EVENT_MS };
  }

  private async countPages(task: Task, loaded: number): Promise<void> {
    task.pages += loaded;
    if (task.pages > this.options.settings.maxPages) throw await this.limitReached(task, 'pages');
  }

  /** Closes the task (saved) and says why, as the step's answer. */
  private async limitReached(task: Task, what: 'pages' | 'time'): Promise<ServiceError> {
    const { maxPages, maxActiveMs } = this.options.settings;
    const used = what === 'pages' ? `its ${maxPages} pages` : `its ${Math.round(maxActiveMs / 1000)} s of active time`;
    await this.closeTask(task, `it used up ${used}`);
    return new ServiceError(
      'task_limit',
      `the task used up ${used}; it was closed (its cookies are kept) and a new task starts with the next open`,
    );
  }

  private liveTask(user: string): Task | undefined {
    const task = this.tasks.get(user);
    return task && !task.closed ? task : undefined;
  }

  private taskOf(user: string): Task {
    const task = this.liveTask(user);
    if (task) return task;
    const why = this.closedBecause.get(user);
    throw new ServiceError(
      'no_session',
      why
        ? `the task was closed (${why}); open a page to start a new one`
        : 'there is no open task for this user: open a page first',
    );
  }

  private async start(user: string): Promise<Task> {
    const { settings, guard, log } = this.options;
    if (this.shuttingDown) throw new ServiceError('busy', 'the browser service is shutting down');
    if (this.tasks.size + this.opening >= settings.maxTasks) {
      throw new ServiceError(
        'busy',
        `the browser service has ${settings.maxTasks} users' tasks open, the most it takes at once; try again later`,
      );
    }
    this.opening += 1;
    try {
      let storageState: StorageState | undefined;
      try {
        storageState = await this.profiles.load(user);
      } catch (error) {
        if (!(error instanceof ProfileUnreadableError)) {
          log(`profile could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
          throw new ServiceError('failed', "the user's browser profile could not be read; see the service's log");
        }
        log(`a profile is unreadable (${error.why}); the task starts without it`);
      }
      const controller = new AbortController();
      const browser = await this.options.chromium.browser();
      const guarded = await openGuardedContext(browser, guard, { maxBytes: this.options.maxBytes }, controller.signal, {
        storageState,
        viewport: VIEWPORT,
      });
      // A page whose renderer crashed (its script heap is capped) is closed: the next step gets a blank one.
      guarded.context.on('page', (page) => page.on('crash', () => void page.close().catch(() => undefined)));
      await guarded.context.newPage();
      const task = new Task(user, guarded, controller);
      guarded.context.on('close', () => this.forget(task, 'the browser stopped'));
      this.tasks.set(user, task);
      this.closedBecause.delete(user);
      log(`session started (${this.tasks.size} tasks open)`);
      return task;
    } finally {
      this.opening -= 1;
    }
  }

  /** Saves and closes; `reason` when the service closes it on its own. */
  private async closeTask(task: Task, reason?: string, { save } = { save: true }): Promise<void> {
    if (task.closed) return;
    this.forget(task, reason);
    if (save) await this.save(task);
    task.controller.abort();
    await task.guarded.close();
    this.options.log(`session closed (${reason ?? 'asked'}; ${this.tasks.size} tasks open)`);
  }

  private forget(task: Task, reason: string | undefined): void {
    if (task.closed) return;
    task.closed = true;
    clearTimeout(task.idleTimer);
    if (this.tasks.get(task.user) === task) this.tasks.delete(task.user);
    if (reason) this.closedBecause.set(task.user, reason);
  }

  /** The task's cookies and local storage to disk; a failure is logged (the step's answer stands). */
  private async save(task: Task): Promise<void> {
    try {
      const state = await within(task.guarded.context.storageState(), SAVE_MS);
      if (state === TIMED_OUT) return void this.options.log('profile not saved: the page did not answer in time');
      await this.profiles.save(task.user, state);
    } catch (error) {
      if (task.guarded.context.browser()?.isConnected() === false) return; // nothing to read: the last save stands
      this.options.log(`profile not saved (${(error as NodeJS.ErrnoException).code ?? firstLine(error)})`);
    }
  }

  /** After a step or a wait: the idle timer starts again. */
  private stepDone(task: Task): void {
    task.lastStepAt = Date.now();
    clearTimeout(task.idleTimer);
    const { idleMs } = this.options.settings;
    task.idleTimer = setTimeout(() => {
      void this.serialised(task.user, async () => {
        // A step may have run since the timer fired (it waited for that step): then the task is not idle.
        if (!task.closed && Date.now() - task.lastStepAt >= idleMs) {
          await this.closeTask(task, `no step for ${Math.round(idleMs / 1000)} s`);
        }
      }).catch(() => undefined);
    }, idleMs);
    task.idleTimer.unref();
  }

  /** Runs the user's jobs one at a time, in order; a few may wait, more are answered busy. */
  private serialised<T>(user: string, job: () => Promise<T>): Promise<T> {
    const queue = this.queues.get(user) ?? { tail: Promise.resolve(), pending: 0 };
    if (queue.pending > MAX_WAITING_STEPS) {
      const message = `this user's steps run one at a time and ${queue.pending - 1} are waiting; try again shortly`;
      return Promise.reject(new ServiceError('busy', message));
    }
    queue.pending += 1;
    this.queues.set(user, queue);
    const result = queue.tail.then(job);
    queue.tail = result.then(
      () => undefined,
      () => undefined,
    );
    void queue.tail.then(() => {
      queue.pending -= 1;
      if (queue.pending === 0 && this.queues.get(user) === queue) this.queues.delete(user);
    });
    return result;
  }
}
