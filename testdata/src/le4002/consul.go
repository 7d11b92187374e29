package le4002

import "github.com/hashicorp/consul/api"

const sessionTTL = "5s"

func consulLocks(client *api.Client, ttl string) {
	client.LockOpts(&api.LockOptions{
		Key:        "service/billing/leader",
		SessionTTL: sessionTTL, // want `Consul session TTL 5s is outside what the server accepts \(10s to 24h0m0s\)`
	})
	client.Session().Create(&api.SessionEntry{
		Name:     "reports-leader",
		TTL:      "48h", // want `Consul session TTL 48h0m0s is outside what the server accepts`
		Behavior: "delete",
	}, nil)
	// negatives: the default, a valid TTL, a TTL from configuration
	client.LockOpts(&api.LockOptions{Key: "service/a/leader"})
	client.LockOpts(&api.LockOptions{Key: "service/b/leader", SessionTTL: "15s"})
	client.LockOpts(&api.LockOptions{Key: "service/c/leader", SessionTTL: ttl})
}
