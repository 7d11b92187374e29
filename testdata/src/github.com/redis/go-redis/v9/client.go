// Package redis is a stub of github.com/redis/go-redis/v9 for analyzer
// tests: real signatures, trivial bodies.
package redis

import (
	"context"
	"time"
)

// Nil is the reply for a missing key.
const Nil = RedisError("redis: nil")

// RedisError is an error reply.
type RedisError string

func (e RedisError) Error() string { return string(e) }

// KeepTTL keeps the existing TTL of a key (SET ... KEEPTTL).
const KeepTTL = -1

type Options struct {
	Addr     string
	Password string
	DB       int
}

type UniversalOptions struct {
	Addrs      []string
	DB         int
	Password   string
	MasterName string
}

type Cmder interface {
	Name() string
	Args() []interface{}
	Err() error
}

type baseCmd struct {
	args []interface{}
	err  error
}

func (cmd *baseCmd) Name() string        { return "" }
func (cmd *baseCmd) Args() []interface{} { return cmd.args }
func (cmd *baseCmd) Err() error          { return cmd.err }

type Cmd struct {
	baseCmd
	val interface{}
}

func (cmd *Cmd) Val() interface{}               { return cmd.val }
func (cmd *Cmd) Result() (interface{}, error)   { return cmd.val, cmd.err }
func (cmd *Cmd) Text() (string, error)          { return "", cmd.err }
func (cmd *Cmd) Int() (int, error)              { return 0, cmd.err }
func (cmd *Cmd) Int64() (int64, error)          { return 0, cmd.err }
func (cmd *Cmd) Bool() (bool, error)            { return false, cmd.err }
func (cmd *Cmd) StringSlice() ([]string, error) { return nil, cmd.err }

type BoolCmd struct {
	baseCmd
	val bool
}

func (cmd *BoolCmd) Val() bool             { return cmd.val }
func (cmd *BoolCmd) Result() (bool, error) { return cmd.val, cmd.err }

type StatusCmd struct {
	baseCmd
	val string
}

func (cmd *StatusCmd) Val() string             { return cmd.val }
func (cmd *StatusCmd) Result() (string, error) { return cmd.val, cmd.err }

type StringCmd struct {
	baseCmd
	val string
}

func (cmd *StringCmd) Val() string             { return cmd.val }
func (cmd *StringCmd) Result() (string, error) { return cmd.val, cmd.err }
func (cmd *StringCmd) Int64() (int64, error)   { return 0, cmd.err }
func (cmd *StringCmd) Bytes() ([]byte, error)  { return nil, cmd.err }

type IntCmd struct {
	baseCmd
	val int64
}

func (cmd *IntCmd) Val() int64             { return cmd.val }
func (cmd *IntCmd) Result() (int64, error) { return cmd.val, cmd.err }

type DurationCmd struct {
	baseCmd
	val time.Duration
}

func (cmd *DurationCmd) Val() time.Duration             { return cmd.val }
func (cmd *DurationCmd) Result() (time.Duration, error) { return cmd.val, cmd.err }

// SetArgs provides arguments for the SetArgs function.
type SetArgs struct {
	// Mode can be `NX` or `XX` or empty.
	Mode string
	// Zero `TTL` or `Expiration` means that the key has no expiration time.
	TTL      time.Duration
	ExpireAt time.Time
	// When Get is true, the command returns the old value stored at key.
	Get bool
	// KeepTTL is a Redis KEEPTTL option to keep existing TTL.
	KeepTTL bool
}

// Cmdable is the command set every client offers.
type Cmdable interface {
	StreamCmdable
	Pipeline() Pipeliner
	TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error)
	Ping(ctx context.Context) *StatusCmd
	Do(ctx context.Context, args ...interface{}) *Cmd
	Get(ctx context.Context, key string) *StringCmd
	GetSet(ctx context.Context, key string, value interface{}) *StringCmd
	GetDel(ctx context.Context, key string) *StringCmd
	Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd
	SetArgs(ctx context.Context, key string, value interface{}, a SetArgs) *StatusCmd
	SetEx(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd
	SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd
	SetXX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd
	Del(ctx context.Context, keys ...string) *IntCmd
	Unlink(ctx context.Context, keys ...string) *IntCmd
	Exists(ctx context.Context, keys ...string) *IntCmd
	Expire(ctx context.Context, key string, expiration time.Duration) *BoolCmd
	PExpire(ctx context.Context, key string, expiration time.Duration) *BoolCmd
	ExpireAt(ctx context.Context, key string, tm time.Time) *BoolCmd
	PExpireAt(ctx context.Context, key string, tm time.Time) *BoolCmd
	Persist(ctx context.Context, key string) *BoolCmd
	TTL(ctx context.Context, key string) *DurationCmd
	PTTL(ctx context.Context, key string) *DurationCmd
	Incr(ctx context.Context, key string) *IntCmd
	IncrBy(ctx context.Context, key string, value int64) *IntCmd
	HSet(ctx context.Context, key string, values ...interface{}) *IntCmd
	HGet(ctx context.Context, key, field string) *StringCmd
	HDel(ctx context.Context, key string, fields ...string) *IntCmd
	LPush(ctx context.Context, key string, values ...interface{}) *IntCmd
	RPush(ctx context.Context, key string, values ...interface{}) *IntCmd
	Publish(ctx context.Context, channel string, message interface{}) *IntCmd
	Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd
	EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd
	EvalRO(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd
	ScriptExists(ctx context.Context, hashes ...string) *BoolSliceCmd
	ScriptLoad(ctx context.Context, script string) *StringCmd
	XReadGroup(ctx context.Context, a *XReadGroupArgs) *XStreamSliceCmd
	XClaim(ctx context.Context, a *XClaimArgs) *XMessageSliceCmd
	XClaimJustID(ctx context.Context, a *XClaimArgs) *StringSliceCmd
	XAck(ctx context.Context, stream, group string, ids ...string) *IntCmd
}

type BoolSliceCmd struct {
	baseCmd
	val []bool
}

func (cmd *BoolSliceCmd) Result() ([]bool, error) { return cmd.val, cmd.err }

type cmdable func(ctx context.Context, cmd Cmder) error

func (c cmdable) Pipeline() Pipeliner                              { return nil }
func (c cmdable) Do(ctx context.Context, args ...interface{}) *Cmd { return &Cmd{} }
func (c cmdable) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}
func (c cmdable) Ping(ctx context.Context) *StatusCmd            { return &StatusCmd{} }
func (c cmdable) Get(ctx context.Context, key string) *StringCmd { return &StringCmd{} }
func (c cmdable) GetSet(ctx context.Context, key string, value interface{}) *StringCmd {
	return &StringCmd{}
}
func (c cmdable) GetDel(ctx context.Context, key string) *StringCmd { return &StringCmd{} }
func (c cmdable) Set(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd {
	return &StatusCmd{}
}
func (c cmdable) SetArgs(ctx context.Context, key string, value interface{}, a SetArgs) *StatusCmd {
	return &StatusCmd{}
}
func (c cmdable) SetEx(ctx context.Context, key string, value interface{}, expiration time.Duration) *StatusCmd {
	return &StatusCmd{}
}
func (c cmdable) SetNX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd {
	return &BoolCmd{}
}
func (c cmdable) SetXX(ctx context.Context, key string, value interface{}, expiration time.Duration) *BoolCmd {
	return &BoolCmd{}
}
func (c cmdable) Del(ctx context.Context, keys ...string) *IntCmd    { return &IntCmd{} }
func (c cmdable) Unlink(ctx context.Context, keys ...string) *IntCmd { return &IntCmd{} }
func (c cmdable) Exists(ctx context.Context, keys ...string) *IntCmd { return &IntCmd{} }
func (c cmdable) Expire(ctx context.Context, key string, expiration time.Duration) *BoolCmd {
	return &BoolCmd{}
}
func (c cmdable) PExpire(ctx context.Context, key string, expiration time.Duration) *BoolCmd {
	return &BoolCmd{}
}
func (c cmdable) ExpireAt(ctx context.Context, key string, tm time.Time) *BoolCmd  { return &BoolCmd{} }
func (c cmdable) PExpireAt(ctx context.Context, key string, tm time.Time) *BoolCmd { return &BoolCmd{} }
func (c cmdable) Persist(ctx context.Context, key string) *BoolCmd                 { return &BoolCmd{} }
func (c cmdable) TTL(ctx context.Context, key string) *DurationCmd                 { return &DurationCmd{} }
func (c cmdable) PTTL(ctx context.Context, key string) *DurationCmd                { return &DurationCmd{} }
func (c cmdable) Incr(ctx context.Context, key string) *IntCmd                     { return &IntCmd{} }
func (c cmdable) IncrBy(ctx context.Context, key string, value int64) *IntCmd      { return &IntCmd{} }
func (c cmdable) HSet(ctx context.Context, key string, values ...interface{}) *IntCmd {
	return &IntCmd{}
}
func (c cmdable) HGet(ctx context.Context, key, field string) *StringCmd         { return &StringCmd{} }
func (c cmdable) HDel(ctx context.Context, key string, fields ...string) *IntCmd { return &IntCmd{} }
func (c cmdable) LPush(ctx context.Context, key string, values ...interface{}) *IntCmd {
	return &IntCmd{}
}
func (c cmdable) RPush(ctx context.Context, key string, values ...interface{}) *IntCmd {
	return &IntCmd{}
}
func (c cmdable) LPop(ctx context.Context, key string) *StringCmd { return &StringCmd{} }
func (c cmdable) RPopLPush(ctx context.Context, source, destination string) *StringCmd {
	return &StringCmd{}
}
func (c cmdable) LRange(ctx context.Context, key string, start, stop int64) *StringSliceCmd {
	return &StringSliceCmd{}
}
func (c cmdable) Publish(ctx context.Context, channel string, message interface{}) *IntCmd {
	return &IntCmd{}
}
func (c cmdable) Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd {
	return &Cmd{}
}
func (c cmdable) EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd {
	return &Cmd{}
}
func (c cmdable) EvalRO(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd {
	return &Cmd{}
}
func (c cmdable) ScriptExists(ctx context.Context, hashes ...string) *BoolSliceCmd {
	return &BoolSliceCmd{}
}
func (c cmdable) ScriptLoad(ctx context.Context, script string) *StringCmd { return &StringCmd{} }

// Client is a Redis client.
type Client struct {
	cmdable
}

func NewClient(opt *Options) *Client { return &Client{} }

func (c *Client) Close() error { return nil }
func (c *Client) Watch(ctx context.Context, fn func(*Tx) error, keys ...string) error {
	return nil
}

// ClusterClient is a Redis Cluster client.
type ClusterClient struct {
	cmdable
}

func (c *ClusterClient) Close() error { return nil }
func (c *ClusterClient) Watch(ctx context.Context, fn func(*Tx) error, keys ...string) error {
	return nil
}

// UniversalClient is the common interface of Client and ClusterClient.
type UniversalClient interface {
	Cmdable
	Do(ctx context.Context, args ...interface{}) *Cmd
	Watch(ctx context.Context, fn func(*Tx) error, keys ...string) error
	Close() error
}

func NewUniversalClient(opts *UniversalOptions) UniversalClient { return &Client{} }

// Tx is a transaction started by Watch.
type Tx struct {
	cmdable
}

func (c *Tx) TxPipelined(ctx context.Context, fn func(Pipeliner) error) ([]Cmder, error) {
	return nil, nil
}

// Pipeliner queues commands.
type Pipeliner interface {
	Cmdable
	Do(ctx context.Context, args ...interface{}) *Cmd
	Exec(ctx context.Context) ([]Cmder, error)
}

// Scripter is what Script.Run needs.
type Scripter interface {
	Eval(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd
	EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd
	EvalRO(ctx context.Context, script string, keys []string, args ...interface{}) *Cmd
	ScriptExists(ctx context.Context, hashes ...string) *BoolSliceCmd
	ScriptLoad(ctx context.Context, script string) *StringCmd
}

// Script is a Lua script.
type Script struct {
	src, hash string
}

func NewScript(src string) *Script { return &Script{src: src} }

func (s *Script) Hash() string                                    { return s.hash }
func (s *Script) Load(ctx context.Context, c Scripter) *StringCmd { return &StringCmd{} }
func (s *Script) Eval(ctx context.Context, c Scripter, keys []string, args ...interface{}) *Cmd {
	return &Cmd{}
}
func (s *Script) EvalSha(ctx context.Context, c Scripter, keys []string, args ...interface{}) *Cmd {
	return &Cmd{}
}
func (s *Script) Run(ctx context.Context, c Scripter, keys []string, args ...interface{}) *Cmd {
	return &Cmd{}
}
