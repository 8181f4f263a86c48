package initcmd

import (
	"bytes"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// goldenFile writes the cases in the short form (a top-level list, as
// examples/golden/seed.yaml), each with draft: true and what to edit; when
// a tool is not marked read-only, in the long form, whose defaults stub it
// for every case (stubTools), so that no draft executes it.
func goldenFile(target string, ntools int, cases []*draftCase, drafted string, stubs []string) ([]byte, error) {
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range cases {
		m := &yaml.Node{Kind: yaml.MappingNode, HeadComment: c.Comment}
		add := func(k string, v *yaml.Node) { m.Content = append(m.Content, scalar(k), v) }
		add("id", scalar(c.ID))
		d := scalar("true")
		d.Tag = "!!bool"
		d.LineComment = "edit this case, then delete this line"
		add("draft", d)
		add("prompt", scalar(c.Prompt))
		switch c.Tool {
		case "":
			t := scalar("true")
			t.Tag = "!!bool"
			add("negative", t)
		default:
			add("expect_tool", scalar(c.Tool))
		}
		if len(c.Args) > 0 {
			args, err := valueNode(c.Args)
			if err != nil {
				return nil, err
			}
			args.LineComment = "partial: only these are checked; check that they are what the prompt asks for"
			add("expect_args", args)
		} else if c.ArgsNote != "" {
			m.FootComment = c.ArgsNote
		}
		if len(c.Forbid) > 0 {
			f := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, name := range c.Forbid {
				f.Content = append(f.Content, scalar(name))
			}
			add("forbid_tools", f)
		}
		list.Content = append(list.Content, m)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `# mcp-eval's golden tasks for %s, drafted by mcp-eval init from its %d tools%s.
# The format is mcp-eval's docs/tasks.schema.json (README, "Layer 1: behaviour").
#
# Every case is a draft (draft: true): make each prompt something a user of
# your server would really type, check the expected arguments, add chains
# (expect_sequence) and answer checks (expect_answer), then delete the
# draft line. Drafts run like any case; the summary counts them.
#
#   mcp-eval run --dry-run     checks this file against the server, and prices a run
#
`, target, ntools, drafted)
	doc := list
	if len(stubs) > 0 {
		doc = stubbedSuite(list, stubs)
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	enc.Close()
	return b.Bytes(), nil
}

// stubbedSuite is the long form of the cases: version 1, defaults whose
// stub_results answer each of stubs without executing it, and the cases.
func stubbedSuite(cases *yaml.Node, stubs []string) *yaml.Node {
	results := &yaml.Node{Kind: yaml.MappingNode}
	for _, name := range stubs {
		k := scalar(name)
		k.HeadComment = name + " is not marked readOnlyHint: true, so a model's call is answered with this and never executed;\n" +
			"make it what the tool returns, or delete this entry if running it is safe"
		v := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		item := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		item.Content = []*yaml.Node{scalar("type"), scalar("text"), scalar("text"), scalar("OK (stubbed: " + name + " was not executed)")}
		item.Content[3].Style = 0
		v.Content = []*yaml.Node{scalar("content"), {Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{item}}}
		results.Content = append(results.Content, k, v)
	}
	defaults := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("stub_results"), results}}
	version := &yaml.Node{Kind: yaml.ScalarNode, Value: "1", Tag: "!!int"}
	dk := scalar("defaults")
	dk.HeadComment = "every case takes these defaults"
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		scalar("version"), version, dk, defaults, scalar("cases"), cases}}
}

// stubTools are the tools a draft must not execute: those the server does
// not mark readOnlyHint: true. An absent hint is not read-only: the
// spec's default is false
// (https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations).
func stubTools(tools []mcp.Tool) []string {
	var out []string
	for _, t := range tools {
		if !t.ReadOnly() {
			out = append(out, t.Name)
		}
	}
	return out
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s, Tag: "!!str"} }

// valueNode is a JSON value as YAML, in flow style for short maps.
func valueNode(v any) (*yaml.Node, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, err
	}
	root := n.Content[0]
	if len(b) <= 80 {
		root.Style = yaml.FlowStyle
	} else {
		root.Style = 0
	}
	clearStyles(root)
	return root, nil
}

// clearStyles drops the quoting JSON brought, so strings read as YAML
// writes them (quoted only where needed).
func clearStyles(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		n.Style = 0
	}
	for _, c := range n.Content {
		clearStyles(c)
	}
}

// configFile is mcp-eval.yaml with the server settings init was given.
func configFile(cfg *config.Config, golden string) ([]byte, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node, comment string) {
		key := scalar(k)
		key.HeadComment = comment
		m.Content = append(m.Content, key, v)
	}
	switch {
	case cfg.ServerStart != "":
		add("server-start", scalar(cfg.ServerStart), "the command that starts the server, stopped at the end")
		add("server-url", scalar(cfg.ServerURL), "")
	case cfg.ServerURL != "":
		add("server-url", scalar(cfg.ServerURL), "")
	default:
		add("server-cmd", scalar(cfg.ServerCmd), "the stdio server")
	}
	if len(cfg.Headers.Vals) > 0 {
		h := &yaml.Node{Kind: yaml.SequenceNode}
		for _, v := range cfg.Headers.Vals {
			h.Content = append(h.Content, scalar(v))
		}
		add("header", h, "$VAR expands from the environment when mcp-eval runs")
	}
	if cfg.ProtocolVersion != config.Default().ProtocolVersion {
		add("protocol-version", scalar(cfg.ProtocolVersion), "")
	}
	for _, name := range []string{"timeout", "start-timeout"} {
		if cfg.FlagGiven(name) {
			v := cfg.Timeout
			if name == "start-timeout" {
				v = cfg.StartTimeout
			}
			add(name, scalar(v.String()), "")
		}
	}
	if golden != config.Default().Golden {
		add("golden", scalar(golden), "the golden tasks (draft: true until edited)")
	}
	if cfg.Models != "" {
		add("models", scalar(cfg.Models), "the behaviour layer's models (README, \"Model providers\")")
	}
	var b bytes.Buffer
	b.WriteString("# mcp-eval's configuration, written by mcp-eval init. Every flag of mcp-eval run is\n# a key here; flags given on the command line win. See README, \"Command line\".\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	enc.Close()
	if cfg.Models == "" {
		b.WriteString("# models: ollama:qwen2.5:7b   # the behaviour layer's models (README, \"Model providers\")\n")
	}
	return b.Bytes(), nil
}
