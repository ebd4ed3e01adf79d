// Command dashboard-check loads Grafana dashboards the way Grafana's schema defines them and fails
// on anything it would not take: the Grafana foundation SDK's strict decoding (generated from
// Grafana's own schema, with every panel and query plugin it knows registered) refuses unknown,
// missing or mistyped fields, then each query is parsed with Prometheus' own PromQL parser.
//
// Usage: dashboard-check FILE...; prints one line per problem and exits 1 if there is any.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/prometheus/prometheus/promql/parser"
)

// Grafana's interval variables stand where PromQL wants a duration; any other variable stands in
// a label value or a name.
var (
	intervalVariable = regexp.MustCompile(`\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}`)
	otherVariable    = regexp.MustCompile(`\$\{[A-Za-z0-9_:]+\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[A-Za-z0-9_]+\]\]`)
)

// The queries of a dashboard. The SDK's decoders report problems well but, in this version, keep
// no decoded panel when there is none, so the queries are read from the JSON itself.
type panel struct {
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource *struct {
		Type string `json:"type"`
	} `json:"datasource"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []panel `json:"panels"`
}

// failure is err unless it is an empty list: the SDK's decoders return their (possibly empty)
// list of problems as an error either way.
func failure(err error) error {
	var list cog.BuildErrors
	if errors.As(err, &list) && len(list) == 0 {
		return nil
	}
	return err
}

func queryProblems(file string, panels []panel, promql parser.Parser) (problems []string, count int, queries int) {
	for _, p := range panels {
		count++
		nested, n, q := queryProblems(file, p.Panels, promql)
		problems, count, queries = append(problems, nested...), count+n, queries+q
		if len(p.Targets) > 0 && (p.Datasource == nil || p.Datasource.Type != "prometheus") {
			problems = append(problems, fmt.Sprintf("%s: panel %q has queries but no Prometheus data source", file, p.Title))
		}
		for i, target := range p.Targets {
			expr := intervalVariable.ReplaceAllString(target.Expr, "5m")
			expr = otherVariable.ReplaceAllString(expr, "x")
			if _, err := promql.ParseExpr(expr); err != nil {
				problems = append(problems, fmt.Sprintf("%s: panel %q target %d: %v", file, p.Title, i, err))
			}
			queries++
		}
	}
	return problems, count, queries
}

func check(file string, promql parser.Parser) []string {
	raw, err := os.ReadFile(file)
	if err != nil {
		return []string{err.Error()}
	}
	var board dashboard.Dashboard
	if err := failure(board.UnmarshalJSONStrict(raw)); err != nil {
		return []string{fmt.Sprintf("%s: not a valid Grafana dashboard: %v", file, err)}
	}
	if err := failure(board.Validate()); err != nil {
		return []string{fmt.Sprintf("%s: %v", file, err)}
	}
	var content struct {
		Panels []panel `json:"panels"`
	}
	if err := json.Unmarshal(raw, &content); err != nil {
		return []string{err.Error()}
	}
	problems, panels, queries := queryProblems(file, content.Panels, promql)
	if len(problems) == 0 {
		fmt.Printf("%s: %d panels, %d queries: valid\n", file, panels, queries)
	}
	return problems
}

func main() {
	plugins.RegisterDefaultPlugins()
	promql := parser.NewParser(parser.Options{})
	failed := false
	for _, file := range os.Args[1:] {
		for _, problem := range check(file, promql) {
			fmt.Println(problem)
			failed = true
		}
	}
	if failed || len(os.Args) < 2 {
		os.Exit(1)
	}
}
