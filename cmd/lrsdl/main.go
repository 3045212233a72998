// Command lrsdl trains, evaluates and inspects discriminative dictionary
// learning classifiers (LRSDL, FDDL, DLSI, COPAR and their baselines).
//
//	lrsdl demo [-out DIR]                       every method on synthetic data; atoms in a new lrsdl-demo-N
//	lrsdl train -data FILE -method NAME -o MODEL [-json]
//	lrsdl predict -model MODEL -data FILE [-no-labels] [-o FILE.csv|FILE.json|-]
//	lrsdl eval -data FILE -method NAME[,NAME] -train-per-class N -splits S [-cv K] [-json]
//	lrsdl complexity [-C -n -k -q -d -q2]       the paper's Tables 1 and 2
//	lrsdl compare -algo fddl|dlsi|copar         original versus efficient algorithms
//	lrsdl methods [NAME] [-json]                every option: default, range, meaning
//
// Samples are scaled to unit ℓ2 norm unless -normalize=false; the model
// file records the choice and predict applies it. Progress goes to stderr
// (-q: none, -v: every iteration). Exit status: 0 on success, 1 on
// failure, 2 on a usage error (an option out of range included, also when
// the data sets the range); errors are one line. SIGINT, SIGTERM or
// SIGHUP stops the work cleanly (exit 1) and a second one at once (exit
// 128+signal); neither leaves a temporary file behind. An output file is
// written whole or not at all, never over an input of the command; a
// symlink's target is written, a device or FIFO in place.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/internal/atomicfile"
	"github.com/lrsdl/lrsdl/methods"
)

// Method registry and model files, replaceable in tests.
var (
	newMethod   = func(n string) (lrsdl.Classifier, error) { return methods.New(n) }
	methodNames = methods.Names
	loadModel   = methods.LoadFile
)

func main() {
	blas.Setup()
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go onSignals(sigs, cancel, os.Exit)
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// signalNames names the signals that stop the command.
var signalNames = map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// onSignals cancels the work at the first signal from sigs, so that it
// stops cleanly; at a second one it removes the temporary files and calls
// exit with 128+signal.
func onSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, exit func(int)) {
	s := <-sigs
	cancel(fmt.Errorf("%w by %s", context.Canceled, signalNames[s]))
	s = <-sigs
	atomicfile.RemoveTemps()
	code := 1
	if n, ok := s.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	exit(code)
}

// usageError marks errors that exit with status 2.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

type command struct {
	name, args, summary string
	run                 func(ctx context.Context, e *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"demo", "[-out DIR]", "train every method on the paper's synthetic data, print a table, draw atoms.png", runDemo},
		{"train", "-data FILE -method NAME -o MODEL", "train a classifier and save it", runTrain},
		{"predict", "-model MODEL -data FILE [-o CSV]", "classify data with a saved model", runPredict},
		{"eval", "-data FILE -method NAME[,NAME...] -splits S", "accuracy and time over random splits, optionally cross-validated", runEval},
		{"complexity", "[-C -n -k -q -d -q2]", "the paper's complexity Tables 1 and 2 for any sizes", runComplexity},
		{"compare", "-algo fddl|dlsi|copar", "original versus efficient algorithm: cost against time", runCompare},
		{"methods", "[NAME] [-json]", "list the registered methods and every option with its default, range and meaning", runMethods},
	}
}

// env is what a command writes to.
type env struct {
	stdout, stderr io.Writer
	rep            *reporter // progress on stderr
}

// progressFlags registers -q and -v, which set how much progress e reports.
func (e *env) progressFlags(fs *flag.FlagSet) {
	fs.BoolVar(&e.rep.quiet, "q", false, "quiet: no progress on stderr, only results and errors")
	fs.BoolVar(&e.rep.verbose, "v", false, "verbose: one line per training iteration with the cost terms")
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: lrsdl COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'lrsdl COMMAND -h' for the flags of a command.\n")
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	tty, width := isTerminal(stderr)
	e := &env{stdout: stdout, stderr: stderr, rep: newReporter(stderr, tty, width)}
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		defer func() {
			// A panic is a bug; report it in one line, not a stack dump.
			if p := recover(); p != nil {
				e.rep.done()
				fmt.Fprintf(stderr, "lrsdl %s: internal error (a bug, please report it): %v\n", c.name, p)
				code = 1
			}
		}()
		defer methods.SetMemoryLimit(0) // back to the default
		err := c.run(ctx, e, args[1:])
		e.rep.done()
		var (
			ue usageError
			oe *methods.OptionError
		)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &ue) || errors.As(err, &oe):
			// An option out of range is a usage error, also when the
			// range depends on the data and Fit found it.
			fmt.Fprintf(stderr, "lrsdl %s: %s (see 'lrsdl %s -h')\n", c.name, errorText(err), c.name)
			return 2
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			if we := (*writtenError)(nil); errors.As(err, &we) {
				fmt.Fprintf(stderr, "lrsdl %s: %s after the model was written to %s; the test set was not scored\n", c.name, interrupted(ctx), we.path)
				return 1
			}
			fmt.Fprintf(stderr, "lrsdl %s: %s, stopped cleanly; nothing was written\n", c.name, interrupted(ctx))
			return 1
		default:
			fmt.Fprintf(stderr, "lrsdl %s: %s\n", c.name, errorText(err))
			return 1
		}
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	fmt.Fprintf(stderr, "lrsdl: unknown command %q: want one of %s (see 'lrsdl -h')\n", args[0], strings.Join(names, ", "))
	return 2
}

// interrupted says why ctx was cancelled, e.g. "interrupted by SIGTERM".
func interrupted(ctx context.Context) string {
	if c := context.Cause(ctx); c != ctx.Err() {
		return "interrupted " + strings.TrimPrefix(c.Error(), ctx.Err().Error()+" ")
	}
	return "interrupted"
}

// errorText is err's message in the command's words: an option out of
// range is named as the -p flag that sets it.
func errorText(err error) string {
	msg := err.Error()
	var oe *methods.OptionError
	if errors.As(err, &oe) {
		msg = strings.Replace(msg, oe.Error(), fmt.Sprintf("-p %s=%s: %s %s (method %s)", oe.Name, oe.Value, oe.Name, oe.Reason, oe.Method), 1)
	}
	msg = strings.ReplaceAll(msg, "(methods.SetMemoryLimit)", "(-max-memory)")
	return strings.ReplaceAll(msg, "\n", " ")
}

// parseBytes parses a size such as 4GB, 500MB, 2.5e9 or 1024.
func parseBytes(s string) (int64, error) {
	num, mult := strings.ToUpper(strings.TrimSpace(s)), 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}} {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v*mult >= 1) || v*mult > math.MaxInt64 {
		return 0, fmt.Errorf("want a size such as 4GB, 500MB or 1e9 (bytes)")
	}
	return int64(v * mult), nil
}

// flagSet returns a flag set for command name whose -h prints the
// command's synopsis and flags to stdout.
func flagSet(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var c command
	for _, c = range commands {
		if c.name == name {
			break
		}
	}
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: lrsdl %s %s\n\n%s.\n\nFlags:\n", name, c.args, strings.ToUpper(c.summary[:1])+c.summary[1:])
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args into fs; -h prints usage to stdout.
func parse(e *env, fs *flag.FlagSet, args []string) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return flag.ErrHelp
		}
	}
	// The flag package's own messages go nowhere: the error is one line.
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// methodFlags are the flags that choose and configure methods.
type methodFlags struct {
	params eval.Params
	typed  map[string]string // the values of -p as typed, by option
	seed   uint64
	iters  int
	// noNormalize sets the models' no_normalize (-normalize=false): they
	// then use the samples as the command prepared them.
	noNormalize bool
}

func (m *methodFlags) register(fs *flag.FlagSet) {
	m.params, m.typed = eval.Params{}, map[string]string{}
	fs.Func("p", "method option `name=value`, e.g. -p lambda1=0.01 (repeatable; see 'lrsdl methods')", func(kv string) error {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m.typed[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		return m.params.Set(kv)
	})
	fs.Func("params", "method options as `name=value,...`, e.g. 'lambda1=0.01,eta=0.1'", func(s string) error {
		p, err := eval.ParseParams(s)
		for k, v := range p {
			m.params[k] = v
		}
		return err
	})
	memoryFlag(fs)
	fs.Uint64Var(&m.seed, "seed", 1, "random seed of splits and of methods with a seed option")
	fs.Func("iters", "`N` outer iterations of methods with an iters option (default: the method's own)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("want an integer ≥ 1")
		}
		m.iters = n
		return nil
	})
}

// memoryFlag registers -max-memory, which sets methods.SetMemoryLimit.
func memoryFlag(fs *flag.FlagSet) {
	fs.Func("max-memory", "refuse to load data or train when it would need more than `SIZE` of memory, e.g. 4GB or 500MB (default: half the physical memory)", func(v string) error {
		b, err := parseBytes(v)
		if err != nil {
			return err
		}
		methods.SetMemoryLimit(b)
		return nil
	})
}

// newClassifier returns a NewFunc making the named method with the flags' options.
func (m *methodFlags) newClassifier(name string) eval.NewFunc {
	return func() (lrsdl.Classifier, error) {
		c, err := newMethod(name)
		if err != nil {
			return nil, usageError{err}
		}
		p := eval.Params{}
		names := eval.ParamNames(c)
		has := func(k string) bool { i := sort.SearchStrings(names, k); return i < len(names) && names[i] == k }
		if has("seed") {
			p["seed"] = m.seed
		}
		if m.iters > 0 && has("iters") {
			p["iters"] = m.iters
		}
		if m.noNormalize && has("no_normalize") {
			p["no_normalize"] = 1
		}
		for k, v := range m.params {
			p[k] = v
		}
		if err := eval.Configure(c, p); err != nil {
			// Name the value as typed, not as parsed (1e-999 is 0).
			var oe *methods.OptionError
			if errors.As(err, &oe) && m.typed[oe.Name] != "" {
				oe.Value = m.typed[oe.Name]
			}
			return nil, usageError{err}
		}
		return c, nil
	}
}

func runMethods(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "methods")
	asJSON := fs.Bool("json", false, "print one JSON object per method with its options")
	// The method's name may come before or after -json.
	var name string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			name, args = a, append(args[:i:i], args[i+1:]...)
			break
		}
	}
	if err := parse(e, fs, args); err != nil {
		return err
	}
	names := methodNames()
	if name != "" {
		names = []string{name}
	}
	if len(names) == 0 {
		return fmt.Errorf("no methods are registered in this build")
	}
	for i, n := range names {
		c, err := newMethod(n)
		if err != nil {
			return usageError{err}
		}
		var ps []lrsdl.Param
		if cf, ok := c.(lrsdl.Configurable); ok {
			ps = cf.Params()
		}
		if *asJSON {
			type param struct {
				Name    string `json:"name"`
				Type    string `json:"type"`
				Value   string `json:"value,omitempty"`
				Default string `json:"default"`
				Range   string `json:"range,omitempty"`
				Doc     string `json:"doc"`
			}
			out := struct {
				Method string  `json:"method"`
				Params []param `json:"params"`
			}{Method: c.Name()}
			for _, p := range ps {
				out.Params = append(out.Params, param{p.Name, p.Type, p.Value, p.Default, p.Range, p.Doc})
			}
			if err := printJSON(e.stdout, out); err != nil {
				return err
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "%s (-method %s)\n", c.Name(), n)
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  option\ttype\tdefault\trange\tmeaning\n")
		for _, p := range ps {
			v := p.Default
			if p.Value != "" && p.Value != p.Default {
				v = p.Value + " (set; default " + p.Default + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", p.Name, p.Type, v, orDash(p.Range), p.Doc)
		}
		tw.Flush()
	}
	if name == "" && !*asJSON {
		fmt.Fprintf(e.stdout, "\nSet an option with -p name=value, e.g. -p k=15 -p lambda1=0.001.\n")
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
