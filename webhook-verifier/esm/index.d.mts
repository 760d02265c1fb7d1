export * from '../dist/cjs/index.js';
