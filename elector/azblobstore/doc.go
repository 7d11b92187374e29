// Package azblobstore is an elector.Store on Azure Blob Storage leases,
// through github.com/Azure/azure-sdk-for-go/sdk/storage/azblob. It is
// tested against Azurite, the storage emulator (internal/testserver).
//
// Each lease name is one block blob, named like the lease, in a container
// the caller provides (New, EnsureContainer). The blob's content is empty;
// its Azure lease and its metadata carry the election:
//
//	token     fencing token of the current or most recent term
//	holder    its owner identity (base64url: metadata values are headers)
//	expms     the term's expiry, service time, Unix milliseconds
//	leasems   no earlier than this the Azure lease ends, Unix milliseconds
//	leasesec  the Azure lease's duration in seconds
//
// The Azure lease ID is derived from the holder (LeaseID, a UUID), so a
// restarted process with the same identity proposes the same ID and
// reclaims its live lease at once.
//
// # Lease durations
//
// Azure grants fixed leases of 15 to 60 s only. The store takes the Azure
// lease with the ttl rounded up to whole seconds and into [15 s, 60 s] and
// refuses a ttl above 60 s with an error: the elector's
// Timing.LeaseDuration must be at most 60 s (renew at about a third of it,
// as elector.Timing's rules require anyway). The Store declares these
// bounds (the LeaseBounds method of elector.Store), so elector.New rejects a longer lease
// when the candidate is built.
//
// A ttl below 15 s still ends when it should: the term's own expiry is in
// the metadata, judged by the service's clock (the Date header of its
// answers, whole seconds). A competitor that finds the term expired while
// its Azure lease is still active breaks that lease (break period 0) and
// acquires it. So a term is live while its Azure lease is active AND its
// expiry has not passed; expiry is the grant's Date plus one second plus
// ttl (Date truncates the moment the service received the request), so a
// term may last up to about two seconds longer than ttl, never shorter.
//
// # Atomicity
//
// Blob storage has no transactions; every step is conditional instead.
// Acquire reads the blob (ETag, lease state, metadata), then breaks,
// acquires and writes the new term's metadata, each with If-Match on the
// ETag it read; the metadata write also carries the new lease ID, so only
// the Azure lease holder can make it. Lease operations leave the ETag
// alone and every term's metadata write changes it, so any step fails
// (409/412, reported as elector.ErrHeld) once another client began or
// renewed a term after the read. Renew checks the term, then renews the
// Azure lease (RenewLease with the term's lease ID; AcquireLease with the
// same ID when a longer duration is needed) and moves the expiry, all
// If-Match the ETag it checked; Release checks the term and releases the
// Azure lease If-Match that ETag. A refused condition is ErrLost. Renew is
// three round trips, Acquire three to six (the first one creates the blob).
//
// # Tokens
//
// The token lives in the blob's metadata, which is only ever replaced by
// the holder of the Azure lease with If-Match on the ETag that showed the
// previous token, so it never goes back while the service keeps its data
// (Azure Storage is durable; Azurite keeps its data across a clean
// restart on the same --location). As a second line of defence every
// token is at least the service's clock in microseconds (whole seconds
// times a million), like the Redis store: Azurite killed with -9 loses up
// to its last 5 s of writes, and this floor still keeps the next token
// above the lost ones as long as the restart took at least a second and
// the clock did not step back. Tokens are therefore large (about 1.8e15).
//
// # Testing on Azurite
//
// The tests run the conformance suite, a restart of Azurite on the same
// data directory (tokens and metadata are kept; Azurite 3.37 does not keep
// a live fixed lease across its restart, it reloads the lease as expired,
// so a term ends with the emulator's restart), a kill -9 of Azurite (it
// forgets up to 5 s of writes; the container is recreated and the clock
// floor keeps tokens growing) and the shared fault scenarios except
// ServerKill9, which needs a crash-durable server.
//
// # No watch
//
// Blob storage offers no change notification usable here (Event Grid
// events need a subscription endpoint and arrive late and at least once;
// the change feed is minutes behind and not in Azurite). The store does
// not implement elector.Watcher: standbys poll with Acquire. Consequences:
// after a graceful handover (Release) a standby takes over on its next
// retry, up to Timing.RetryInterval later instead of at once; after a
// leader dies, the lease is free when its expiry passes (ttl plus up to
// about 2 s of rounding), and a standby notices on its next retry.
//
// # Fencing
//
// Without fencing at the resource this is an efficiency lock, as every
// lease is: a paused holder can outlive its term. Check the token at the
// resource ("only if token >= highest seen"), with a conditional write.
//
// # Clocks
//
// Expiry is judged by the storage service's wall clock (its Date header,
// and Azure's own lease timer). A forward step of the service's clock ends
// live terms early (only fencing catches the second leader); a backward
// step delays failover. Azure runs its clocks disciplined; Azurite uses the
// host's wall clock, so do not step the host's clock under it. See the
// elector package's "Clocks" section for the candidates' side.
package azblobstore
