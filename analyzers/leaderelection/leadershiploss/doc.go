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
//   - a Consul (*api.Lock).Lock whose lost-leadership channel is discarded;
//   - a lock acquire (gocron Locker.Lock, redsync, redislock, etcd Mutex)
//     whose result is discarded while the work runs anyway;
//   - a lock renewal (redsync Extend, redislock Refresh) whose failure is
//     ignored or only logged;
//   - leader work after an etcd Campaign that never observes the session's
//     Done() channel (or Ctx());
//   - IsLeader() checked once before a long-running loop that never checks
//     it again.
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
// derived inside the callback whose cancel is deferred there, sessions that
// are passed elsewhere, and wrappers that hand the callback anything but the
// leader context.
package leadershiploss
