// Package kubestore is the Kubernetes backend of the elector: an
// elector.Store and elector.Watcher on coordination.k8s.io/v1 Lease objects
// through k8s.io/client-go, tested against a real kube-apiserver.
//
// See docs/kubernetes.md for the RBAC Role to grant and the benchmark
// against client-go's leaderelection.
package kubestore
