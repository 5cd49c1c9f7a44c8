//! A Claude handler for a batch tool call (`read_files`, `fetch_web_content`,
//! `search_codebase` in the cli profile) runs once per item, each run shown that item alone
//! (see `claude::batch`): a guard of one file, URL or pattern sees every one. Each item run
//! is its own record in the run's executions (the handler's path, and a first warning naming
//! its item), so the usual combination applies to each: any block blocks, a printed block is
//! never dropped, contexts join in item order. The items' `updatedInput`s are merged into
//! one, carried by the last item run that printed one, so the run sees one per handler; a run
//! for a value outside the field the call is mapped from (`BatchItem::applies`) has none.

use std::future::Future;
use std::sync::Arc;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::claude::{
    call_parameters, claude_event_of, merge_item_inputs, Batch, BatchItem, BATCH_ITEM_LIMIT,
};
use crate::discovery::DiscoveredHook;
use crate::observe::HookWatch;
use crate::process::{Execution, RunContext, Status};

/// One run of a hook, with its deadline and live events: the runner's guarded run, passed in.
pub(super) trait RunOne: Clone + Send + 'static {
    /// The run, to await.
    type Run: Future<Output = Execution> + Send + 'static;
    /// Starts it.
    fn run(
        &self,
        hook: DiscoveredHook,
        ctx: Arc<RunContext>,
        deadline: Instant,
        watch: Option<Arc<HookWatch>>,
    ) -> Self::Run;
}

impl<F, Fut> RunOne for F
where
    F: Fn(DiscoveredHook, Arc<RunContext>, Instant, Option<Arc<HookWatch>>) -> Fut
        + Clone
        + Send
        + 'static,
    Fut: Future<Output = Execution> + Send + 'static,
{
    type Run = Fut;
    fn run(
        &self,
        hook: DiscoveredHook,
        ctx: Arc<RunContext>,
        deadline: Instant,
        watch: Option<Arc<HookWatch>>,
    ) -> Fut {
        self(hook, ctx, deadline, watch)
    }
}

/// `hook`'s executions for this run: one, or one per item of a batch its Claude handler
/// takes one item of. `guarded` runs one (the runner's, passed in), `watch` makes a run's live
/// events; each execution's `End` is sent here, with the execution as the run reports it.
/// `sequential`: the item runs one after another, as the run's hooks are.
pub(super) async fn guarded_items<W>(
    hook: DiscoveredHook,
    ctx: Arc<RunContext>,
    deadline: Instant,
    (watch, sequential): (W, bool),
    guarded: impl RunOne,
) -> Vec<Execution>
where
    W: Fn(&DiscoveredHook) -> Option<Arc<HookWatch>>,
{
    // (A shared reference to the run's batch: no allocation for the hooks that are not Claude's.)
    let batch = ctx.claude_batch.clone().filter(|_| hook.claude.is_some());
    let (watches, executions) = match batch.as_deref().unwrap_or(&Batch::One) {
        Batch::One => {
            let watching = watch(&hook);
            let exec = guarded.run(hook, ctx, deadline, watching.clone()).await;
            (vec![watching], vec![exec])
        }
        Batch::TooMany { tool, count } => {
            let why = format!(
                "{tool} holds {count} items, more than the {BATCH_ITEM_LIMIT} a Claude hook is run for one by one"
            );
            let watching = watch(&hook);
            let exec = if claude_event_of(&hook.hook_name) == Some("PreToolUse") {
                // Fail closed: a guard shown one item of many would pass the others unseen.
                too_many(&hook, &ctx, &why)
            } else {
                // After the tool ran there is nothing to guard: the run as before, said.
                let mut exec = guarded.run(hook, ctx, deadline, watching.clone()).await;
                exec.warnings
                    .push(format!("{why}: it was shown the first item only"));
                exec
            };
            (vec![watching], vec![exec])
        }
        Batch::Items { key, items } => {
            let watches: Vec<_> = items.iter().map(|_| watch(&hook)).collect();
            let executions = run_items(
                hook,
                ctx,
                deadline,
                (&watches, sequential),
                *key,
                items,
                guarded,
            )
            .await;
            (watches, executions)
        }
    };
    for (watching, exec) in watches.iter().zip(&executions) {
        if let Some(watching) = watching {
            watching.end(exec);
        }
    }
    executions
}

/// A batch too long to run item by item, before a tool runs: blocked, the handler not run.
fn too_many(hook: &DiscoveredHook, ctx: &RunContext, why: &str) -> Execution {
    let mut exec = Execution::of(hook, Status::Failed);
    exec.timeout = ctx.timeout_of(hook);
    exec.cancel = true;
    exec.error_message = format!("blocked: {why}; split the call into smaller ones");
    exec.failure = Some(format!("not run: {why}"));
    exec
}

/// The item runs, in item order: concurrently (they share the handler's deadline), or with
/// `sequential` one after another.
async fn run_items(
    hook: DiscoveredHook,
    ctx: Arc<RunContext>,
    deadline: Instant,
    (watches, sequential): (&[Option<Arc<HookWatch>>], bool),
    key: Option<&'static str>,
    items: &[BatchItem],
    guarded: impl RunOne,
) -> Vec<Execution> {
    let mut set = JoinSet::new();
    let mut slots: Vec<Option<Execution>> = vec![None; items.len()];
    for (slot, item) in items.iter().enumerate() {
        let mut item_ctx = (*ctx).clone();
        item_ctx.claude_input = Some(Arc::new(item.input.clone()));
        // An item's run is one run of the handler: never a batch again.
        item_ctx.claude_batch = None;
        let hook = hook.clone();
        // Each item's run has its live events, under the handler's path.
        let watch = watches.get(slot).cloned().flatten();
        if sequential {
            // One after another, each with the handler's whole timeout, as the run's hooks.
            let timeout = ctx.timeout_of(&hook);
            let now = Instant::now();
            let deadline = now.checked_add(timeout).unwrap_or(deadline.max(now));
            slots[slot] = Some(guarded.run(hook, Arc::new(item_ctx), deadline, watch).await);
            continue;
        }
        let guarded = guarded.clone();
        set.spawn(async move {
            (
                slot,
                guarded.run(hook, Arc::new(item_ctx), deadline, watch).await,
            )
        });
    }
    while let Some(joined) = set.join_next().await {
        if let Ok((slot, exec)) = joined {
            if let Some(place) = slots.get_mut(slot) {
                *place = Some(exec);
            }
        }
    }
    let mut executions: Vec<Execution> = slots
        .into_iter()
        .map(|exec| {
            exec.unwrap_or_else(|| {
                let mut lost = Execution::of(&hook, Status::Failed);
                lost.failure = Some("its task ended unexpectedly".into());
                lost
            })
        })
        .collect();
    for (exec, item) in executions.iter_mut().zip(items) {
        exec.warnings.insert(0, format!("ran for {}", item.label));
    }
    // Each item's updatedInput back into its own item, as one.
    let mut changed = Vec::new();
    let mut carrier = None;
    for (i, (exec, item)) in executions.iter_mut().zip(items).enumerate() {
        if exec.status != Status::Completed {
            continue;
        }
        if let Some(input) = exec.override_input.take() {
            if !item.applies {
                // Its run was for a value the SDK may read, not the one the call is mapped
                // from: there is no place in the call to put it back.
                exec.warnings.push(
                    "updatedInput not applied: this run was for a field the SDK may also read, not the one the call's input is taken from".into(),
                );
                continue;
            }
            changed.push((item.index, input));
            carrier = Some(i);
        }
    }
    if let (Some(i), Some(input)) = (carrier, &ctx.claude_input) {
        let original = call_parameters(&hook.hook_name, input, ctx.profile);
        let (merged, warnings) = merge_item_inputs(&original, key, &changed);
        if let Some(exec) = executions.get_mut(i) {
            exec.override_input = Some(merged);
            exec.warnings.extend(warnings);
        }
    }
    executions
}
