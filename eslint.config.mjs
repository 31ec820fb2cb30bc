// Flat config: typescript-eslint's recommended rules over every TypeScript file we write.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    // .tools/ holds the slither venv that npm run analyze makes; .nap/ is npm start's local state; each workspace
    // package compiles into a dist/ of its own.
    ignores: [
      "node_modules/",
      "artifacts/",
      "cache/",
      "typechain-types/",
      "coverage/",
      "**/dist/",
      "deployments/",
      "build/",
      ".tools/",
      ".nap/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "no-console": "off",
    },
  },
  {
    // CommonJS configuration files of the tools (.solcover.js).
    files: ["**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } },
  },
  {
    // The CLI and MCP entry points and the packages' build scripts: CommonJS over the package's compiled dist/.
    files: ["packages/*/bin/*.js", "packages/*/scripts/*.js"],
    languageOptions: { globals: { process: "readonly", __dirname: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Mocha's chai assertions are expressions such as `expect(x).to.be.true`.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-expressions": "off" },
  },
);
