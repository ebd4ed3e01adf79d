import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  {
    // client-node's KubeConfig loads every generated API model: about 90 MB in the operator and a
    // much larger Action bundle. Types are free; values come from operator/kube instead.
    files: ['operator/**/*.ts', 'action/**/*.ts'],
    ignores: ['**/*.test.ts', 'operator/api/generate-types.ts', 'operator/api/type-generation.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@kubernetes/client-node',
              message: 'Use operator/kube (ApiClient, kubeconfig, cluster-access) instead.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
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
