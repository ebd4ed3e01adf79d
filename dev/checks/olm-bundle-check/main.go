// Command olm-bundle-check validates an OLM bundle folder with the operator-framework's own
// validators, those `operator-sdk bundle validate` runs: the default bundle validators (CSV, CRDs,
// bundle), OperatorHub's (v2, capabilities, categories), good practices, the bundle's other objects
// and the APIs removed by a Kubernetes version.
//
// Usage: olm-bundle-check BUNDLE_DIR K8S_VERSION; prints one line per error and warning and exits
// 1 if there is an error.
package main

import (
	"fmt"
	"os"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: olm-bundle-check BUNDLE_DIR K8S_VERSION")
		os.Exit(2)
	}
	bundle, err := manifests.GetBundleFromDir(os.Args[1])
	if err != nil {
		fmt.Printf("error: cannot load the bundle: %v\n", err)
		os.Exit(1)
	}
	validators := validation.DefaultBundleValidators.WithValidators(
		validation.OperatorHubV2Validator,
		validation.StandardCapabilitiesValidator,
		validation.StandardCategoriesValidator,
		validation.GoodPracticesValidator,
		validation.ObjectValidator,
		validation.AlphaDeprecatedAPIsValidator,
	)
	objects := append(bundle.ObjectsToValidate(), map[string]string{"k8s-version": os.Args[2]})
	failed := false
	for _, result := range validators.Validate(objects...) {
		for _, problem := range result.Errors {
			fmt.Printf("error: %s\n", problem.Error())
			failed = true
		}
		for _, problem := range result.Warnings {
			fmt.Printf("warning: %s\n", problem.Error())
		}
	}
	if failed {
		os.Exit(1)
	}
	fmt.Printf("%s: valid\n", bundle.Name)
}
