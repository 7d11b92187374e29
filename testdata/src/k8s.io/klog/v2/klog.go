// Package klog is a stub of k8s.io/klog/v2 for analyzer tests: real names
// and signatures of what the fixtures use, trivial bodies.
package klog

import "time"

func Info(args ...interface{})                                   {}
func Infof(format string, args ...interface{})                   {}
func InfoS(msg string, keysAndValues ...interface{})             {}
func Warningf(format string, args ...interface{})                {}
func Errorf(format string, args ...interface{})                  {}
func ErrorS(err error, msg string, keysAndValues ...interface{}) {}
func Fatalf(format string, args ...interface{})                  {}
func Fatal(args ...interface{})                                  {}
func FlushAndExit(flushTimeout time.Duration, exitCode int)      {}
