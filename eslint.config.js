// ESLint for the player's JavaScript (static/js): `make lint` runs it with --max-warnings 0.
// The modules run in the browser as they are (no bundler), so the globals are the browser's.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", ".venv/", "build/", "dist/"] },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // House rules: small files and functions.
      "max-lines": ["error", { max: 400 }],
      "max-lines-per-function": ["error", { max: 60 }],
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_", caughtErrors: "none" }],
      "eqeqeq": ["error", "smart"],
      "no-var": "error",
      "prefer-const": "error",
    },
  },
  {
    // Folders import one way: entry points → controllers → views. Views only render.
    files: ["static/js/views/**/*.js"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{
        group: ["../controllers/*", "../startup.js", "../main.js", "../presenter.js", "../print.js"],
        message: "views only render: controllers and entry points import views, never the other way",
      }] }],
    },
  },
  {
    // lib/ holds leaf utilities used by every folder: they import nothing of ours outside lib/.
    files: ["static/js/lib/**/*.js"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{
        group: ["../*", "!../lib/*"],
        message: "lib/ modules are leaves: everything may import them, they import only each other",
      }] }],
    },
  },
  {
    // Classic scripts (not modules): run before first paint, or start Swagger UI.
    files: ["static/js/prepaint.js", "static/js/docs.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    // Node scripts: this file and the tests' harness.
    files: ["eslint.config.js", "tests/**/*.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
];
