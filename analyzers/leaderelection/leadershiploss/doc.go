// Package leadershiploss defines the LE4001 analyzer: leader-only work that
// is not bound to leadership.
//
// # Analyzer leadershiploss
//
// leadershiploss: leader work not bound to leadership
//
// Leadership ends: the lease is not renewed in time (a partition, a long GC
// pause, an overloaded API server) and another replica takes it. Work started
// as leader must stop when that happens, or two replicas do the leader's job
// at once. The analyzer reports, where it can see the evidence:
//
//   - in a client-go OnStartedLeading callback (also one passed through a
//     project wrapper that forwards it to the elector, recognised across
//     packages by a fact), work started with a context that is not derived
//     from the callback's ctx: context.Background(), context.TODO(), or a
//     ctx or stop channel captured from the enclosing function; "work" is a
//     call named Run or Start (RunXxx, StartXxx), a scheduler loop of the
//     knowledge base, or a go statement. It stays silent when the
//     OnStoppedLeading callback stops the process or the work (exits,
//     panics, cancels, closes a channel, or calls anything not known to
//     only log), since losing the lease then ends the work anyway;
//     The same check applies to the work function of this project's
//     elector (Candidate.Run), and to callbacks held in a local closure
//     variable or declared as functions of the package;
//   - leadership reduced to a value on a channel (flagsignal.go): the
//     OnStartedLeading callback drops its context and only sends true on a
//     channel (a field, a local, or a parameter whose callers pass a local
//     of theirs), OnStoppedLeading only sends false on it (both may log);
//     the receiver keeps the value and, while it is true, starts goroutines
//     that are handed no context or channel and whose body reads no
//     context and receives from no channel, and does more than log. The
//     false stops new work, not the goroutines already running. Reported
//     at the go statement, once per function started, Related at the two
//     sends and the receive;
//   - a Consul (*api.Lock).Lock whose lost-leadership channel is discarded;
//   - a lock acquire (gocron Locker.Lock, redsync, redislock, etcd Mutex,
//     Azure Blob AcquireLease, or any Lock/TryLock/Acquire method returning a
//     bool) whose result is discarded, or whose failure is only logged,
//     while the work runs anyway;
//   - a lock renewal (redsync Extend, redislock Refresh, etcd KeepAliveOnce,
//     Azure Blob RenewLease,
//     or a Heartbeat/Renew/Refresh/Extend method of a type that also has
//     Lock and Unlock of its own, not promoted from an embedded sync.Mutex
//     or sync.RWMutex, or a helper carrying the Renews fact: it wraps such a
//     renewal and returns its error without stopping anything; a renewal
//     that itself, or through a helper of its package, cancels the work,
//     calls a cancel handler or closes a channel is not one) whose failure
//     is ignored (also `_, _ =`) or only logged (also logged and followed by
//     continue, which goes on to the next renewal while the work runs);
//   - a renewal of the project's own making whose failure reaches nothing:
//     a goroutine renews, in a loop paced by a ticker, a timer, time.After
//     or time.Sleep, a row this replica holds (an UPDATE that moves an
//     expiry column, lease_expires_at or a message's visibility timeout,
//     keyed by the instance's identity or by what a claim returned to it;
//     the effects package reads the statement through helpers and
//     interface implementations), and the renewal's error or bool, read in
//     SSA, is only tested by branches that, up to the loop's next round or
//     the goroutine's end, only log, sleep or format, or it is discarded,
//     or the renewer returns with nothing deferred that stops the work.
//     A Redis refresher counts as well: EXPIRE or PEXPIRE of a key the
//     package acquires as a lock (SET NX, in the same function, a method
//     of the same type, or a constant key), or a script on it that
//     expires (compare-and-refresh), its answer read through the
//     command's Err, Result or Val.
//     Reported at the renewal call (the "ignored channel" of signals.md:
//     the one place that learns of the loss), Related at the failure
//     branch, at the go statement, at the work started after it and at
//     the claim or acquire before it, when in sight. Silent when the
//     failing branch or a deferred call cancels (any call of a function
//     value), closes or sends, stores to a field or captured variable (a
//     flag), calls code other than logging, formatting, errors and time,
//     or when the outcome is handed on, or when the rest of the round does
//     anything of that kind on success too (a deadline recorded in a field
//     that the work may check, a lease object reset); silent for a row not known to be
//     held (a shared key, a parameter from outside), for renewals of the
//     known lock libraries (checked as above) and electors (client-go,
//     etcd concurrency, this project's elector), for a Redis key nothing
//     here acquires, and for a script whose text is out of sight;
//   - a renewal that cannot tell its caller the hold was lost, so that a
//     caller that stops the work when the renewal fails never does
//     (renewheld.go): an UPDATE that moves an expiry column (the reading of
//     the loop check above) conditional on the holder (WHERE ... AND
//     worker = ?) whose answer (the sql.Result, a command tag, the
//     RETURNING rows, directly or through a helper returning them) is
//     never used; the same renewal keyed by the row alone, setting only
//     the expiry, of a table whose claim writes a holder column (SET
//     locked_until = ?, worker = ?); and a Redis Streams XCLAIM (or
//     XClaimJustID) with MinIdle 0 to the consumer the package reads its
//     group as (the same field, variable or constant as an XReadGroupArgs'
//     Consumer): it takes the entry back whoever holds it. Reported at the
//     statement's or the XCLAIM's call. Silent when the answer is used in
//     any way (RowsAffected read, a row scanned), when the statement is out
//     of sight or no expiry moves, when the helper returns only an error,
//     when MinIdle is above zero or not constant (a takeover of idle
//     entries), when the consumer is another, and for a renewal done in a
//     script (its owner check is not read);
//   - a consumer-group claim (sarama's ConsumerGroupHandler.ConsumeClaim,
//     the knowledge base's claim-handler kind; session.go) is leadership of
//     one partition for one session: a rebalance cancels the session's
//     context, closes the claim's channel and gives the partition to another
//     member. Reported: a loop of ConsumeClaim, or of a function or
//     goroutine of this package it reaches (the roles of their parameters
//     carried from the call), one of whose rounds waits (a blocking select,
//     a receive, a send, time.Sleep) and, on some path back to the loop's
//     head, passes nothing that observes the session's end: a re-send after
//     a nack, a retry with a sleep, a wait for an ack. Reported at the
//     round's last select or receive, Related at its other waits and at a
//     detached context it watches. Observing is a receive or select on the
//     Done of a context not known to be detached, on the claim's messages,
//     or on a channel field a session hook (Setup, Cleanup) writes or
//     closes; reading such a context's Err; or handing the session, the
//     claim or such a context to other code. A context is known to be
//     detached only when it comes from context.Background, TODO or
//     WithoutCancel (through derivations), or from an unexported field of
//     this package that is stored in sight, never by a hook, never with a
//     value derived from a session's context, and whose struct has no
//     function field a hook calls (a cancel). Silent for counted loops (a
//     retry count, a range over a slice or map), for loops that work on no
//     claimed message (a heartbeat goroutine), and for unknown contexts.
//     Across packages, the BlindLoop fact marks an exported function that
//     takes a claimed message and runs such a loop, blind either whatever
//     context it is given or unless its context parameter is the session's;
//     a ConsumeClaim that calls it with a detached context (or at all, for
//     the first kind) is reported at the call;
//   - a renewal bounded by the expiry it asks for (renewdeadline.go): in
//     a loop paced by a ticker, a timer, time.After or time.Sleep, whose
//     exit cancels the work (a context.CancelFunc called, deferred, or a
//     channel closed after the loop; the renewal's own cancel does not
//     count), a renewal call runs on a context bounded by
//     context.WithDeadline(ctx, time.Now().Add(ttl)) where that deadline,
//     or its Unix form, is also the expiry the call asks for (read in SSA,
//     also through a helper whose deadline parameter bounds its call and
//     is passed as the script's argument, judged at each call site that
//     passes a fresh now+TTL), or by context.WithTimeout(ctx, ttl) with
//     the TTL the call asks for, or by a constant timeout not below the
//     constant TTL less the constant renew interval. The lease still ends
//     at its current expiry (the previous success plus the TTL), one
//     interval sooner: when the store stops answering, the call waits or
//     retries until the later deadline, and meanwhile another process
//     acquires the key while this holder's work context is live. The
//     store is read from the call, not from its API's name: a renewal of
//     the knowledge base (an EXPIRE-like command, a row renewal of the
//     effects package) or a call carrying a constant text that moves an
//     expiry (EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT in a script or command,
//     an UPDATE that sets an expiry-like column), traced through
//     parameters, package variables and the constructors that hold the
//     text. Reported at the renewal call in the loop (this rule, not
//     LE4002: the values are seldom constant, and the renewal is the one
//     place that learns of the loss, here too late: the "ignored
//     channel" position of signals.md), Related at the bound, the
//     deadline, the store call and the cancel. Silent when the deadline
//     is not computed afresh from time.Now() in that round (a deadline
//     saved from the previous success, also a value carried through a
//     phi), when the expiry asked for is out of sight (a TTL written in
//     the script), when the timeout is not the TTL asked for and not
//     constant, when no text or knowledge says the call moves an expiry,
//     outside a paced loop, when nothing is cancelled once the loop is
//     left (the failure is then the check above's), and when a
//     time.AfterFunc that cancels the work runs in the renewer's function
//     or one enclosing it and is re-armed (Reset) or never stopped; one
//     stopped once the lock is held and never reset guards nothing. The
//     timing of client-go's RenewDeadline and LeaseDuration is LE4002's;
//   - a renewal with no deadline at all (unbounded.go), the extreme case of
//     the one above: a session renewal of the knowledge base (Consul's
//     Session.Renew, kind session-renew) whose options carry no context
//     with a deadline (nil, or WithContext of context.Background/TODO) on
//     a client whose every construction in sight gives it no HTTP timeout
//     (a default config or a new one handed to nothing but the client
//     constructor, its HttpClient unset, http.DefaultClient or an
//     http.Client without Timeout, no Transport or WaitTime set), run in a
//     loop paced by time whose failure branch returns without going round
//     again and whose exit stops the work (a cancel, a close, or a defer of
//     a function of the package that does one), with no watchdog timer as
//     above. The loop is around the renewal, around a call of its function
//     in the package, or, through the PacedRenew fact, around a call of an
//     interface method of another package that the renewal's method
//     implements (a loop that knows only its own Lease interface). When the
//     store stops answering the call never returns, the loop never learns
//     of a failure, and after the session expires another process takes
//     the lease while this one works. Reported at the renewal, Related at
//     the client's construction and, in the same package, the loop's call
//     and the stop. Silent when the options get any other context, when a
//     client construction is out of sight (a parameter, another package),
//     when its config sets an HTTP client with a Timeout or a timeout
//     field, when a watchdog timer ends the work, outside a paced loop,
//     when the failure does not leave the loop, and when nothing is
//     stopped once the loop is left;
//   - a local validity read after the reply (validafter.go): a field or
//     package variable set to time.Now().Add(ttl) where the time.Now()
//     call comes after (is dominated by) the acquire or renewal that asked
//     the store for that same TTL (an acquire or expire of the knowledge
//     base, a row renewal, or a call with a constant expiry-moving text),
//     then read by the work's check: time's Before, After, Until, Sub or
//     Compare, or context.WithDeadline. The key's expiry runs from when
//     the store handled the command, earlier by the reply's way back and
//     any retry or stall, so the validity ends after the key. Reported at
//     the first check in source order (the check, or the call deriving
//     the work's context, of signals.md's LE4001 positions), Related at
//     the validity and the acquire. Silent for a start time read before
//     the request (start := time.Now(); acquire; start.Add(ttl)), for a
//     time that is not the TTL asked for (a retry backoff), for a call no
//     knowledge or text says moves an expiry, for a local variable, and
//     in packages that import no store of the knowledge base;
//   - leader work after an etcd Campaign (a Run/Start call, a goroutine, an
//     endless loop, or any call handing a context to non-election code) when
//     the session, created in the same function, is never observed through
//     Done() or Ctx() and is not handed to other code;
//   - an election by hash-ring ownership that fails open (ownerloop.go):
//     a loop asks the ring who owns a key (the knowledge base's
//     owner-lookup: dskit's ring.Get), one side of a test of the answer
//     makes a cancellable context (and starts the leader work on it) and
//     the other side calls that same cancel, which shows the lookup to be
//     an election; when the lookup fails, the round only logs and goes on
//     (failure.go's reading), so the work started earlier keeps running on
//     a replica cut off from the ring while the others give the key to a
//     new owner. Reported at the lookup, Related at the error branch, the
//     start and the stop. Silent when the error branch stops, flags, calls
//     other code or returns, when the error is kept in a value not
//     followed, when the not-owner side does not call the cancel made on
//     the owner side (sharding reads that start nothing, a cancel run
//     every round), and for a lookup made once;
//   - a leadership flag kept across a failed acquire or renewal
//     (keptflag.go): a call of a lock with an expiry (a renewal, an
//     acquire of the knowledge base, or a lock-like Acquire/TryLock/Obtain
//     handed a time.Duration TTL) answering (bool, error), run in a loop or
//     in a function a loop calls, whose success path stores the bool (or
//     true) in a field or package variable the package reads as a flag (a
//     bool, or an atomic Store, also through a setter of the package), and
//     whose error path only logs and stores nothing in the flag before the
//     next round or the return. A leader whose renewals fail keeps
//     believing it leads after its lease expired. Reported at the call,
//     Related at the store, the error path and the flag's read. Silent when
//     the error path stores the flag (false, or through a setter), calls
//     anything but logging (a cancel, a stop), returns an error or panics,
//     when nothing reads the flag, for a lock with no TTL in the call, for
//     a method of no lock's name, and for a call made once;
//   - leader work left running when the lease maintenance returns
//     (lostcancel.go): a function acquires a lock (a Lock, TryLock,
//     Acquire, TryAcquire or Obtain method, also in its Context form, of
//     the type the renewal is a method of), makes a per-term context
//     (WithCancel, WithTimeout, WithDeadline), starts the work on it (a go
//     statement handed it or capturing it, or a callback handed it alone:
//     a logger handed it and more is no work), then
//     blocks in a maintenance function of its package: a loop holding a
//     renewal (the lock renewals above: the knowledge base's, or a
//     Renew/Refresh/Extend/KeepAlive/Heartbeat method of a lock type)
//     with a return inside it. Its return is the one place that learns of
//     the loss; when, on some path from it (a test of its error followed
//     on the failing side only: a nil return means its context ended),
//     the function goes back to its loop's head (a block dominating the
//     call: to wait and acquire again) or into an unbounded wait (a
//     blocking select or receive on a channel other than a timer's)
//     without calling the term's cancel or the cancel of a context it is
//     derived from here, the work keeps running while another replica
//     acquires the lock and starts it too. A `defer cancel()` does not
//     stop the path: inside a loop it runs only when the function
//     returns. Reported at the maintenance call, Related at the work, the
//     term's context and where the path waits or goes round. Silent when
//     every such path cancels, returns (the deferred cancels run), panics,
//     exits, sends or closes a channel (the loss handed on), clears a flag
//     (false stored in a field or package variable), or calls a function
//     value or a function of the package that may stop the work; when the
//     path only waits for a timer and returns; when a cancel escapes
//     (stored in a field, handed to other code); when the work is not
//     started on the term's context; when no acquire of the renewed lock
//     comes before; and when the maintenance stops the work itself (closes,
//     cancels, clears a flag), never returns from its loop (a failure only
//     counted or logged: the checks above), or renews outside any loop;
//   - a lease whose loss is only a flag (flaglease.go, flagholder.go): an
//     acquire of a lock client (a function returning the lock type, or a
//     method of it) starts a goroutine whose loop, paced by time, tests a
//     renewal's error and, when it is set, only logs and clears fields of
//     the lock (a sync/atomic Store of zero or false, false stored, a
//     channel field closed), read by a method of the lock (IsLocked()
//     bool, Lost() <-chan struct{}): the FlagLease fact on the acquire
//     names those methods. A holder in any package that keeps the lock in
//     a field (also an interface field it only fills with the one lock
//     type) on which no function of its package calls them, or in a local
//     followed by a loop of work in which, and after which, they are not
//     called, is reported at the acquire, with where the renewal failure
//     clears the flag: after the lease expires a second holder takes it
//     and both work. No fact when the failure calls a function value (a
//     callback, the cancel of a context not made in the goroutine), code
//     not known to be logging or bookkeeping, sends, panics, or returns
//     past such a deferred call, nor when no method reads the field;
//     silent for holders that read a signal as above, for a local lock
//     handed to other code or returned, and for a local one with no loop
//     of work after the acquire (a short section);
//   - IsLeader() checked once before a long-running loop (for {}, a range
//     over a channel, or a scheduler loop such as wait.Forever) that never
//     checks it again nor observes a context;
//   - work started after a "became leader" signal on a context the election
//     does not cancel, when the process outlives the loss: the signal is
//     controller-runtime's Manager.Elected() (closed once, never reset), or
//     a struct field of type chan struct{} closed after it or in an
//     OnStartedLeading callback whose OnStoppedLeading only logs; the work
//     (a go statement or a Run/Start call, also in closures it calls) runs
//     on context.Background() or on a context of the enclosing function,
//     which is not a Runnable's Start (the manager cancels those); and the
//     loss is swallowed: a goroutine runs the manager's Start, or a function
//     that returns its error, and at most logs it. A manager whose error
//     reaches an exit, a return or anything unknown gives no report. The
//     three parts may sit in packages that do not import one another: the
//     ElectedFields and LossSurvives package facts and the Gates and
//     ManagerErr object facts carry them, and the first package that sees
//     all three reports (local work at its call; imported work, once per
//     function, where this package builds or calls what starts it).
//
// For example, this is reported at controller.Run:
//
//	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
//		Callbacks: leaderelection.LeaderCallbacks{
//			OnStartedLeading: func(leaderCtx context.Context) {
//				controller.Run(ctx) // ctx is the process context, not leaderCtx
//			},
//			OnStoppedLeading: func() { klog.Info("lost leadership") },
//		},
//	})
//
// Unknown code gives no report: contexts held in struct fields, contexts
// whose cancel the callback calls itself (deferred, in a goroutine, or after
// the leader context is done), stop channels it closes, sessions that are
// passed elsewhere, and wrappers that hand the callback anything but the
// leader context.
//
// Wrappers are found by the Forwards fact: a function whose parameter
// reaches OnStartedLeading (directly, through a struct field the real
// callback calls with its ctx, or through another wrapper) exports which
// parameter it is, which one is called when leadership is lost, and whether
// the wrapper itself stops the process on loss. Call sites in any package
// are then checked like a callbacks literal.
package leadershiploss
