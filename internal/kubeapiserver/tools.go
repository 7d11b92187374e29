//go:build tools

// Package kubeapiserver pins the kube-apiserver command for the build script;
// the tools tag keeps it out of every ordinary build.
package kubeapiserver

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
