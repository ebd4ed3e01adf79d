import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// client-node's KubeConfig loads every generated API model: about 90 MB in the operator and a
// much larger Action bundle. Types are free; values come from client/kube instead.
const CLIENT_NODE_VALUES = {
  name: '@kubernetes/client-node',
  message: 'Use client/kube (ApiClient, kubeconfig, cluster-access) instead.',
  allowTypeImports: true,
};
const NO_TEST_OR_DEV = {
  group: ['**/test/**', '**/dev/**'],
  message:
    'The product never imports tests or the local environment (dev/); move what it needs into the product.',
};
const NO_OPERATOR = {
  group: ['**/operator/**'],
  message:
    'Only the operator is built on the operator: share code through client/ (Kubernetes access, the API, the lease client) or contracts/.',
};
// The Action is a front end of the lease client (client/lease), as the CLI is; nothing builds on it.
const NO_ACTION = {
  group: ['**/action/**'],
  message: 'Nothing imports the GitHub Action: the lease code it shares lives in client/lease.',
};
// The operator's image carries neither the agent nor the Action (operator/Containerfile).
const NO_CRC_AGENT = {
  group: ['**/crc-agent/**'],
  message:
    'Only crc-agent is built on crc-agent: what the operator shares with it lives in contracts/.',
};
const OPERATOR_ONLY = [NO_ACTION, NO_CRC_AGENT];
const NO_CLIENT = {
  group: ['**/client/**'],
  message: 'contracts/ is the bottom layer: it imports nothing of ours.',
};
const NO_CLI = {
  group: ['**/operator/cli/**'],
  message: 'The local environment is loaded by the CLI, never the other way round.',
  // dev/local/local-cli.ts implements the commands' interface, which the CLI declares.
  allowTypeImports: true,
};
const NO_TEST = {
  group: ['**/test/**'],
  message: 'dev/ is below the tests: it never imports them.',
};
const NO_CONTROLLERS = {
  group: ['**/controllers/**'],
  message: 'The step engine is below the controllers: it knows nothing of what it provisions.',
};
// The simulated world stands beside the product, not on it: it uses the product's API, kube and
// runtime primitives, never its controllers, configuration or Manager (docs/adr/0038-simulator-host-and-operator-scope.md).
const NO_PRODUCT_INTERNALS = {
  group: ['**/operator/controllers/**', '**/operator/config.js', '**/operator/runtime/manager.js'],
  message:
    'dev/ never imports controllers, the operator configuration or the Manager: move what it needs to operator/api, operator/kube or contracts/, and run simulated controllers on dev/platform/host.',
};
const DEV_LAYERS = [
  'support',
  'control-plane',
  'checks',
  'olm',
  'guest',
  'platform',
  'local',
  'soak',
];
// dev/platform by simulated system, in layers too: `host` (the controller host and the kinds every
// part shares) first; simulated-platform.ts, which composes them, is above them all.
const PLATFORM_LAYERS = [
  'host',
  'disks',
  'storage',
  'management',
  'update-service',
  'router',
  'jobs',
  'cdi',
  'kubevirt',
  'hypershift',
  'build',
  'bundles',
];
const TEST_FOLDERS = readdirSync(new URL('./test', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const topology = (other) => ({
  group: [`**/clusterinstance/${other}/**`, `../${other}/**`],
  message: 'One topology never imports the other: shared code belongs to the instance engine.',
});
// Generators run at development time and may read the real client.
const GENERATORS = ['operator/api/generate-types.ts', 'operator/api/type-generation.ts'];

function restrict(files, { paths = [], patterns = [], level = 'error' }, ignores = []) {
  return {
    files,
    ignores: ['**/*.test.ts', ...ignores],
    rules: { '@typescript-eslint/no-restricted-imports': [level, { paths, patterns }] },
  };
}

function layerRules() {
  const instance = 'operator/controllers/clusterinstance';
  return [
    restrict(['action/**/*.ts'], {
      paths: [CLIENT_NODE_VALUES],
      patterns: [NO_TEST_OR_DEV, NO_OPERATOR, NO_CRC_AGENT],
    }),
    restrict(['client/**/*.ts'], {
      paths: [CLIENT_NODE_VALUES],
      patterns: [NO_TEST_OR_DEV, NO_OPERATOR, NO_ACTION, NO_CRC_AGENT],
    }),
    restrict(
      ['operator/**/*.ts'],
      { paths: [CLIENT_NODE_VALUES], patterns: [NO_TEST_OR_DEV, ...OPERATOR_ONLY] },
      GENERATORS,
    ),
    restrict(GENERATORS, { patterns: [NO_TEST_OR_DEV, ...OPERATOR_ONLY] }),
    restrict(['operator/reconcile/**/*.ts'], {
      paths: [CLIENT_NODE_VALUES],
      patterns: [NO_TEST_OR_DEV, ...OPERATOR_ONLY, NO_CONTROLLERS],
    }),
    restrict([`${instance}/crc/**/*.ts`], {
      paths: [CLIENT_NODE_VALUES],
      patterns: [NO_TEST_OR_DEV, ...OPERATOR_ONLY, topology('hcp')],
    }),
    restrict([`${instance}/hcp/**/*.ts`], {
      paths: [CLIENT_NODE_VALUES],
      patterns: [NO_TEST_OR_DEV, ...OPERATOR_ONLY, topology('crc')],
    }),
    restrict(['crc-agent/**/*.ts'], {
      paths: [CLIENT_NODE_VALUES],
      patterns: [NO_TEST_OR_DEV, NO_OPERATOR, NO_ACTION],
    }),
    restrict(['contracts/**/*.ts'], {
      patterns: [NO_TEST_OR_DEV, NO_OPERATOR, NO_ACTION, NO_CRC_AGENT, NO_CLIENT],
    }),
    // dev/ in layers, each importing only those before it in DEV_LAYERS.
    ...DEV_LAYERS.map((layer) => restrict([`dev/${layer}/**/*.ts`], { patterns: devLayer(layer) })),
    ...PLATFORM_LAYERS.map((folder, index) =>
      restrict([`dev/platform/${folder}/**/*.ts`], {
        patterns: [
          ...devLayer('platform'),
          ...[...PLATFORM_LAYERS.slice(index + 1), 'simulated-platform.js'].map((above) => ({
            group: [`../${above}`, `../${above}/**`],
            message: `dev/platform/${folder} is below dev/platform/${above}: it never imports it.`,
          })),
        ],
      }),
    ),
    // test/support is below every test folder, and the folders share only through it (its
    // fixtures/ and runners/): no test folder imports another.
    ...TEST_FOLDERS.map((folder) =>
      testRule(
        [`test/${folder}/*.ts`],
        TEST_FOLDERS.filter((f) => f !== folder && (folder === 'support' || f !== 'support')),
      ),
    ),
    testRule(
      ['test/support/*/**/*.ts'],
      TEST_FOLDERS.filter((f) => f !== 'support'),
      2,
    ),
  ];
}

/** What every file of dev/<layer> never imports: tests, the CLI, product internals, later layers. */
function devLayer(layer) {
  return [
    NO_TEST,
    NO_CLI,
    NO_PRODUCT_INTERNALS,
    ...DEV_LAYERS.slice(DEV_LAYERS.indexOf(layer) + 1).map((above) => ({
      group: [`**/${above}/**`],
      message: `dev/${layer} is below dev/${above}: it never imports it.`,
    })),
  ];
}

/**
 * Test files too: `folders` are sibling folders under test/ that `files` (`depth` folders below
 * test/) never import.
 */
function testRule(files, folders, depth = 1) {
  const up = '../'.repeat(depth);
  return {
    files,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: folders.map((folder) => ({
            group: [`${up}${folder}/**`],
            message: `Shared test code lives in test/support, not in test/${folder}.`,
          })),
        },
      ],
    },
  };
}

// Lint as a structure guard: no floating promises, explicit return types on exported functions,
// no `any`, and limits on complexity and parameter counts.
export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'action/dist/', 'coverage/', '.guestcluster/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      complexity: ['error', 15],
      'max-params': ['error', 5],
      'max-depth': ['error', 4],
    },
  },
  // Layers: the product (operator, crc-agent, action, client, contracts) never imports the tests
  // or the local environment (dev/); contracts/ imports nothing of ours, client/ only contracts/;
  // the operator, the Action and crc-agent stand on those two and never import each other;
  // the step engine (operator/reconcile) never imports a controller; neither instance topology imports the
  // other (docs/adr/0040-a-client-layer.md). Later blocks replace the rule for their files, so each block
  // lists every restriction that applies to them.
  ...layerRules(),
  {
    files: ['**/*.test.ts'],
    rules: {
      // Tests read fields of API errors and watch events, which client-node types loosely.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { URL: 'readonly', process: 'readonly' },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/explicit-module-boundary-types': 'off',
    },
  },
);
