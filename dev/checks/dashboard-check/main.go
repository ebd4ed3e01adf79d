// Command dashboard-check loads Grafana dashboards the way Grafana's schema defines them and fails
// on anything it would not take: the Grafana foundation SDK's strict decoding (generated from
// Grafana's own schema, with every panel and query plugin it knows registered) refuses unknown or
// mistyped fields, then each Prometheus query is parsed with Prometheus' own PromQL parser.
//
// Usage: dashboard-check FILE...; prints one line per problem and exits 1 if there is any.
package main

import (
	"fmt"
	"os"
	"regexp"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/prometheus/prometheus/promql/parser"
)

// Grafana's interval variables stand where PromQL wants a duration; any other variable stands in
// a label value or a name.
var (
	intervalVariable = regexp.MustCompile(`\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}`)
	otherVariable    = regexp.MustCompile(`\$\{[A-Za-z0-9_:]+\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[A-Za-z0-9_]+\]\]`)
)

func check(file string) []string {
	raw, err := os.ReadFile(file)
	if err != nil {
		return []string{err.Error()}
	}
	var board dashboard.Dashboard
	if err := board.UnmarshalJSONStrict(raw); err != nil {
		return []string{fmt.Sprintf("%s: not a valid Grafana dashboard: %v", file, err)}
	}
	if err := board.Validate(); err != nil {
		return []string{fmt.Sprintf("%s: %v", file, err)}
	}
	var problems []string
	panels := []dashboard.Panel{}
	for _, entry := range board.Panels {
		if entry.Panel != nil {
			panels = append(panels, *entry.Panel)
		}
		if entry.RowPanel != nil {
			panels = append(panels, entry.RowPanel.Panels...)
		}
	}
	queries := 0
	for _, panel := range panels {
		title := ""
		if panel.Title != nil {
			title = *panel.Title
		}
		for i, target := range panel.Targets {
			query, ok := target.(*prometheus.Dataquery)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: panel %q target %d is not a Prometheus query (%T)", file, title, i, target))
				continue
			}
			expr := intervalVariable.ReplaceAllString(query.Expr, "5m")
			expr = otherVariable.ReplaceAllString(expr, "x")
			if _, err := parser.ParseExpr(expr); err != nil {
				problems = append(problems, fmt.Sprintf("%s: panel %q target %d: %v", file, title, i, err))
			}
			queries++
		}
	}
	if len(problems) == 0 {
		fmt.Printf("%s: %d panels, %d queries: valid\n", file, len(panels), queries)
	}
	return problems
}

func main() {
	plugins.RegisterDefaultPlugins()
	failed := false
	for _, file := range os.Args[1:] {
		for _, problem := range check(file) {
			fmt.Println(problem)
			failed = true
		}
	}
	if failed || len(os.Args) < 2 {
		os.Exit(1)
	}
}
