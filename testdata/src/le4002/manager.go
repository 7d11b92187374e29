package le4002

import (
	"flag"
	"os"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

func startManager() {
	var enableLeaderElection bool
	flag.BoolVar(&enableLeaderElection, "leader-elect", false, "Enable leader election for controller manager.")
	flag.Parse()

	// RenewDeadline raised above the default 15s lease: the manager fails to
	// start on every replica once leader election is enabled.
	renewDeadline := 20 * time.Second
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		LeaderElection:   enableLeaderElection,
		LeaderElectionID: "billing.example.com",
		RenewDeadline:    &renewDeadline, // want `LeaseDuration 15s is not longer than RenewDeadline 20s`
	})
	if err != nil {
		os.Exit(1)
	}
	_ = mgr
}

func startManagerGood() {
	leaseDuration := 30 * time.Second
	renewDeadline := 20 * time.Second
	retryPeriod := 5 * time.Second
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		LeaderElection:   true,
		LeaderElectionID: "billing.example.com",
		LeaseDuration:    &leaseDuration,
		RenewDeadline:    &renewDeadline,
		RetryPeriod:      &retryPeriod,
	})
	if err != nil {
		os.Exit(1)
	}
	_ = mgr
	// leader election off: the timing is unused
	renew := 20 * time.Second
	_, _ = ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{RenewDeadline: &renew})
}
