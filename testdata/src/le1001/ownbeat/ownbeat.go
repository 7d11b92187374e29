// Package ownbeat: timers that beat for the instance this process
// registered itself (the value its registration stored and started the
// timer for: per-replica by design), and twins that beat for a constant
// key, for instances fetched from the server, or for a value no
// registration stored.
package ownbeat

import (
	"strconv"
	"time"

	"le1001/ownbeat/naming"
	"le1001/ownbeat/wire"
)

// Info describes a registered instance.
type Info struct {
	Service string
	IP      string
	Port    int
}

// Reactor registers instances and beats for them.
type Reactor struct {
	server string
	beats  map[string]*Info
	names  map[string]string
}

// Register announces the instance this process serves and beats for it.
func (r *Reactor) Register(service, group, ip string, port int) {
	info := &Info{Service: naming.Grouped(service, group), IP: ip, Port: port}
	r.add(info)
}

func (r *Reactor) add(info *Info) {
	r.beats[info.Service] = info
	go r.beat(info)
}

func (r *Reactor) beat(info *Info) {
	t := time.NewTimer(time.Minute)
	for range t.C {
		_ = r.send(info)
		t.Reset(time.Minute)
	}
}

func (r *Reactor) send(info *Info) error {
	return wire.Put(r.server+"/beat", map[string]string{"service": info.Service, "ip": info.IP, "port": strconv.Itoa(info.Port)})
}

// RegisterFixed beats for a constant name every replica shares.
func (r *Reactor) RegisterFixed() {
	r.names["svc-a"] = "svc-a"
	go r.beatName("svc-a")
}

func (r *Reactor) beatName(name string) {
	t := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP PUT`
	for range t.C {
		_ = r.sendName(name)
		t.Reset(time.Minute)
	}
}

func (r *Reactor) sendName(name string) error {
	return wire.Put(r.server+"/beat", map[string]string{"service": name})
}

// Follow beats for every instance the server lists (shared data).
func (r *Reactor) Follow() {
	list, _ := wire.Instances(r.server)
	for _, s := range list {
		info := r.fetched(s)
		r.beats[s] = info
		go r.beatFetched(info)
	}
}

func (r *Reactor) fetched(s string) *Info { return &Info{Service: s} }

func (r *Reactor) beatFetched(info *Info) {
	t := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP PUT`
	for range t.C {
		_ = r.send(info)
		t.Reset(time.Minute)
	}
}

// Watch beats for an instance no registration stored.
func (r *Reactor) Watch(service, ip string) {
	info := &Info{Service: service, IP: ip}
	go r.beatUnstored(info)
}

func (r *Reactor) beatUnstored(info *Info) {
	t := time.NewTimer(time.Minute) // want `time.NewTimer runs loop body on every replica every 1m0s: it sends HTTP PUT`
	for range t.C {
		_ = r.send(info)
		t.Reset(time.Minute)
	}
}
