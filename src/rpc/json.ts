/** A JSON value as it travels on the wire (the generic type both interfaces and every backend share). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
