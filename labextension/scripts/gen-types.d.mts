// Types for tests that import the generator.
export declare const OUTPUT: string;
export declare const SCHEMA_DIR: string;
export declare function generate(files?: Record<string, string>): Promise<string>;
export declare function schemaDigest(files: Record<string, string>): string;
export declare const CONSTANTS_OUTPUT: string;
export declare function generateConstants(text?: string): string;
