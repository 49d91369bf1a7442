export interface paths {
    "/inventory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the stock levels of all pets
         * @description Returns the stock level of every pet: a JSON array of `InventoryItem` sorted by `petId` ascending in
         *     numeric order. Without query parameters the array holds every entry, at any store size: it is streamed
         *     (chunked) as the database returns pages, in memory that does not grow with the store. An empty store
         *     answers `[]`.
         *
         *     Status and headers are sent once the first pages are read, so a database that is unreachable at the
         *     start is a 503 Error body. A failure after that ends the connection before the closing `]`: a client
         *     never receives a cut list that parses as complete JSON (treat a transfer that ends early as an error).
         *
         *     Pages: with `limit`, at most that many entries in the same order; when more follow, the response has
         *     `Link: <...>; rel="next"` (RFC 8288) whose target, a reference relative to the host, repeats `limit`
         *     and `status` and carries an opaque `cursor`. Following the `Link` headers gives exactly the full list,
         *     no entry twice. `status` keeps only the entries of that status, with or without pages. Any other query
         *     parameter, or one of these given twice, is 400 `invalid_request`.
         */
        get: operations["listInventory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/inventory/{petId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the stock level of one pet, with its entity tag
         * @description **Experimental.** Returns the inventory entry of `petId` and its strong `ETag`. Send that tag back in
         *     `If-Match` on `updateInventory` to change the entry only if nobody changed it in between (412
         *     `precondition_failed` otherwise). The read is strongly consistent: the tag is that of the latest write.
         */
        get: operations["getInventoryItem"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set the stock quantity of one pet
         * @description **Experimental**: the request shape may change before the operation becomes stable.
         *
         *     Sets the stock quantity of the existing inventory entry of `petId` to the given value (new arrivals,
         *     returns, manual adjustments) and returns the updated entry. It sets, it does not increment; it leaves
         *     `status` unchanged; it is idempotent. It never creates an entry: a `petId` with no entry answers 404
         *     `not_found`. Entries are created by the operator's import tool.
         *
         *     The request must carry a body with `Content-Type: application/json` (parameters such as
         *     `charset=utf-8` allowed) or an `application/<subtype>+json` type; any other content type, or none,
         *     is 400 `invalid_request` (not 415). A missing or empty body, a body that is not valid JSON or not a
         *     JSON object, a missing or invalid `quantity`, or any other member is 400 `invalid_request`; the message
         *     says which (and names the unexpected members: at most five, each cut to 64 characters). A query
         *     parameter is 400 `invalid_request` too (the operation declares none), and nothing is written:
         *     `PATCH /inventory/7?dryRun=true` changes nothing.
         *
         *     **Conditional update.** With `If-Match` (RFC 9110 §13.1.1) carrying the `ETag` of `getInventoryItem`
         *     or of an earlier PATCH, the quantity is set only if the entry is still in that state; otherwise 412
         *     `precondition_failed` and nothing changes. `If-Match: *` only requires the entry to exist. Weak tags
         *     never match (strong comparison). Without `If-Match` the last write wins. A pet with no entry is 404
         *     whatever `If-Match` says. Every 200 carries the entry's new `ETag`.
         */
        patch: operations["updateInventory"];
        trace?: never;
    };
    "/pets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a pet (and its inventory entry)
         * @description **Experimental.** Creates the pet and its inventory entry in one conditional write: from then on
         *     `listInventory` and `getInventoryItem` show the entry with quantity 0 and the pet's `status`. The pet and
         *     the entry are one record: the pet's `status` is the entry's. `id` is optional: without it the service
         *     assigns a positive int64. `status` defaults to `available`, `photoUrls` and `tags` to `[]`. Numbers are
         *     read from their source text, so an `id` beyond 2^53 is stored digit for digit.
         *
         *     Any member other than those of `Pet` is 400 `invalid_request`, and the message names it. An `id` that
         *     exists is 409 `conflict`. The answer is 201 with the Pet and `Location: /v1/pets/{id}`.
         */
        post: operations["addPet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pets/{petId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve one pet (deprecated)
         * @deprecated
         * @description **Deprecated** (specification §9.4), retired at the sunset, 2027-06-30T23:59:59Z. Returns the pet of
         *     `petId`; its `status` is always that of its inventory entry (one record). An entry imported without pet
         *     details has no `name`. Every response the function writes carries `Deprecation: @1795392000`
         *     (2026-11-23, RFC 9745) and `Sunset: Wed, 30 Jun 2027 23:59:59 GMT` (RFC 8594); the dates are settings
         *     of each environment. From the sunset on every request is 410 `gone`. The specification shows no
         *     replacement, so there is no successor link. Responses written by API Gateway itself (401, 429) cannot
         *     carry per-operation headers.
         */
        get: operations["getPetById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/store/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List store orders, newest first, in pages
         * @description **Experimental.** The orders, newest first, at most `limit` per page (default 100). When more follow,
         *     the response has `Link: </v1/store/orders?limit=N&cursor=...>; rel="next"` (RFC 8288): follow it for the
         *     next page; the last page has no `Link`. The cursor is opaque. Served by a Query on an index sorted by
         *     creation, never a scan of the table.
         */
        get: operations["listOrders"];
        put?: never;
        /**
         * Place an order (reserves the stock)
         * @description **Experimental.** Reserves stock for an order: in one DynamoDB transaction the pet's `quantity` is
         *     decremented by the order's, only if at least that much is in stock, and the order is written. Stock is
         *     never oversold, whatever the concurrency. 201 with the `Order` (`status: placed`, `complete: false`) and
         *     `Location`; 404 `not_found` when the pet has no inventory entry; 409 `insufficient_stock` when the stock is
         *     short (nothing changes).
         *
         *     **Idempotency-Key** (optional): a repeat with the same key and the same order (`petId`, `quantity`,
         *     `shipDate`) within 24 hours answers the first order again and reserves nothing more; the same key with
         *     another order is 422 `idempotency_key_reused`; a repeat while the first is still running is 409
         *     `conflict`. Keys are per API key. A first 404 or 409 `insufficient_stock` is remembered and answered
         *     again like an order; a first 400 or 503 records nothing, so a retry with its key is a new attempt.
         */
        post: operations["placeOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/store/orders/{orderId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve one order
         * @description **Experimental.** The order `orderId`; 404 when there is none.
         */
        get: operations["getOrderById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description The status of an inventory entry. What moves an entry between statuses is not specified.
         * @enum {string}
         */
        PetStatus: "available" | "pending" | "sold";
        /** @description One inventory entry: the current stock count of one pet. It has exactly the members `petId`, `quantity` and `status`. */
        InventoryItem: {
            /**
             * Format: int64
             * @description Identifier of the pet this entry tracks: a signed 64-bit integer, written as a JSON integer and exact over the whole range (`9223372036854775807` is written digit for digit). JavaScript clients must parse it with a bigint-aware JSON parser.
             * @example 7
             * @example 9223372036854776000
             */
            petId: bigint;
            /**
             * @description The current stock count.
             * @example 12
             */
            quantity: number;
            status: components["schemas"]["PetStatus"];
        };
        /** @description The body of `updateInventory`: a JSON object with exactly one member, `quantity`. Any other member (for example `status`) is 400 `invalid_request`, and the message names it (at most five names, each cut to 64 characters): the operation is experimental, and silently ignoring a field would lose the client's intent. */
        InventoryUpdate: {
            /**
             * @description The new stock count (it replaces the current one; it is not added to it): a JSON integer from 0 to 2147483647, judged on the number as written in the request text: `5`, `5.0` and `5e0` are 5; `4.9999999999999999`, `1e-400` and `2147483647.0000001` are not integers, even though a double would round them to one. Negative numbers, fractions (`1.5`), numbers out of range, strings (`"5"`), booleans, `null`, arrays and objects are 400 `invalid_request` with the message `quantity must be an integer from 0 to 2147483647`.
             * @example 5
             */
            quantity: number;
        };
        /** @description A category or a tag of a pet (the OpenAPI Petstore's `Category` and `Tag`). */
        Label: {
            /**
             * Format: int64
             * @example 1
             */
            id: bigint;
            /** @example Dogs */
            name: string;
        };
        /** @description A pet, after the OpenAPI Petstore's `Pet`. A pet and its inventory entry are one record: `id` is the entry's `petId`, `status` the entry's status. `name` is absent for an entry imported without details. */
        Pet: {
            /**
             * Format: int64
             * @description The pet's identifier, its inventory entry's `petId`; exact over the whole int64 range.
             * @example 7
             */
            id: bigint;
            /** @example Rex */
            name?: string;
            category?: components["schemas"]["Label"];
            photoUrls: string[];
            tags: components["schemas"]["Label"][];
            status: components["schemas"]["PetStatus"];
        };
        /** @description The body of `addPet`: a `Pet` whose `id` is optional (assigned when absent, a positive int64) and whose `status` defaults to `available`, `photoUrls` and `tags` to `[]`. Any other member is 400. */
        NewPet: {
            /** Format: int64 */
            id?: bigint;
            name: string;
            category?: components["schemas"]["Label"];
            photoUrls?: string[];
            tags?: components["schemas"]["Label"][];
            status?: components["schemas"]["PetStatus"];
        };
        /** @description A store order, after the OpenAPI Petstore's `Order`. New orders are `placed` and not `complete`; transitions are not shown, so nothing changes an order yet. */
        Order: {
            /**
             * Format: int64
             * @description Assigned by the service, positive; a later order has a larger id.
             */
            id: bigint;
            /** Format: int64 */
            petId: bigint;
            quantity: number;
            /** Format: date-time */
            shipDate?: string;
            /** @enum {string} */
            status: "placed" | "approved" | "delivered";
            complete: boolean;
        };
        /** @description The body of `placeOrder`. `id`, `status` and `complete` are the service's: sending them is 400, like any other member. */
        NewOrder: {
            /** Format: int64 */
            petId: bigint;
            quantity: number;
            /**
             * Format: date-time
             * @description An RFC 3339 date-time.
             */
            shipDate?: string;
        };
        /** @description The body of every error response: exactly the members `code`, `message` and `status`, with `status` equal to the HTTP status code of the response. */
        Error: {
            /**
             * @description Machine-readable error code, snake_case and stable; see the table in the API description.
             * @enum {string}
             */
            code: "invalid_request" | "unauthorized" | "forbidden" | "not_found" | "conflict" | "insufficient_stock" | "gone" | "precondition_failed" | "payload_too_large" | "idempotency_key_reused" | "too_many_requests" | "internal_error" | "service_unavailable";
            /** @description A specific, human-readable description of the problem. It reveals no internals (no stack trace, no table name). */
            message: string;
            /** @description The HTTP status code of the response. */
            status: number;
        };
    };
    responses: {
        /** @description `invalid_request`: the petId is not a canonical int64 or not valid percent-encoding, a query parameter the operation does not declare was sent, the body is missing, empty, not JSON, not a JSON object, has a missing or invalid `quantity` or another member, or the content type is not JSON. */
        InvalidRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "invalid_request";
                    /** @constant */
                    status?: 400;
                };
            };
        };
        /** @description `invalid_request`: a `limit` that is not an integer from 1 to 1000, a `status` that is not a PetStatus, a cursor that is not one the service issued for this filter, a parameter given twice, or another query parameter. */
        InvalidListQuery: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "invalid_request";
                    /** @constant */
                    status?: 400;
                };
            };
        };
        /** @description `unauthorized`: the `Authorization` header is missing, uses another scheme or an empty token, or the key is unknown, revoked or expired. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "unauthorized";
                    /** @constant */
                    status?: 401;
                };
            };
        };
        /** @description `forbidden`: the API key is valid but lacks the operation's scope (`inventory:read` for listInventory, getInventoryItem and getPetById; `inventory:write` for updateInventory and addPet; `orders:read` and `orders:write` for the store orders). Nothing is changed. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "forbidden";
                    /** @constant */
                    status?: 403;
                };
            };
        };
        /** @description `not_found`: there is no inventory entry for this petId (the operation never creates one). */
        InventoryEntryNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "not_found";
                    /** @constant */
                    status?: 404;
                };
            };
        };
        /** @description `precondition_failed`: `If-Match` names no current state of the entry (it changed since the tag was read); nothing was changed. */
        PreconditionFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "precondition_failed";
                    /** @constant */
                    status?: 412;
                };
            };
        };
        /** @description `conflict`: a pet with this id exists. */
        PetExists: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "conflict";
                    /** @constant */
                    status?: 409;
                };
            };
        };
        /** @description `not_found`: the API has no such route or method (answered by API Gateway itself, before any credential check). No operation declares it: it is the answer to every path and method not declared here. */
        RouteNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "not_found";
                    /** @constant */
                    status?: 404;
                };
            };
        };
        /** @description `not_found`: there is no order with this id. */
        OrderNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "not_found";
                    /** @constant */
                    status?: 404;
                };
            };
        };
        /** @description `idempotency_key_reused`: the `Idempotency-Key` was used with another order in the last 24 hours. */
        IdempotencyKeyReused: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "idempotency_key_reused";
                    /** @constant */
                    status?: 422;
                };
            };
        };
        /** @description `payload_too_large`: the request body is larger than the gateway accepts; on any operation, a GET included, before the credentials are checked. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "payload_too_large";
                    /** @constant */
                    status?: 413;
                };
            };
        };
        /** @description `too_many_requests`: the request was throttled, over the API key's own rate (each key has a rate and a burst) or the stage's; retry later. Nothing is changed. */
        TooManyRequests: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "too_many_requests";
                    /** @constant */
                    status?: 429;
                };
            };
        };
        /** @description `internal_error`: a fault of the service, including a function that fails, times out or returns more than Lambda's 6 MB response limit (API Gateway's INTEGRATION_FAILURE, rendered as 500 rather than AWS's 502; see docs/api-gateway-behaviour.md). The message reveals no internals. */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "internal_error";
                    /** @constant */
                    status?: 500;
                };
            };
        };
        /** @description `service_unavailable`: the inventory database is unreachable or throttling after the SDK's retries, the authorizer could not decide (its key store is unreachable), or the gateway timed out waiting for the function (INTEGRATION_TIMEOUT, rendered as 503 rather than AWS's 504); retry later. */
        ServiceUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    /** @constant */
                    code?: "service_unavailable";
                    /** @constant */
                    status?: 503;
                };
            };
        };
    };
    parameters: {
        /**
         * @description Identifier of the pet: a signed 64-bit integer written in canonical decimal, `-?(0|[1-9][0-9]*)`, from
         *     -9223372036854775808 to 9223372036854775807 (`-0` matches the rule and means `0`). Anything else is
         *     400 `invalid_request`: `abc`, `1.5`, `01`, `+1`, ` 1`, an out-of-range number, an empty value.
         *
         *     Exact over the whole range: the value is never rounded, and it comes back in the response body as the
         *     same JSON integer, digit for digit. JavaScript clients must parse the response with a bigint-aware
         *     JSON parser to keep values beyond 2^53 exact.
         */
        PetId: bigint;
    };
    requestBodies: never;
    headers: {
        /**
         * @description The strong entity tag of the entry (RFC 9110 §8.8.3), derived from its quantity and status: send it in `If-Match` on `updateInventory`.
         * @example "12-available"
         */
        ETag: string;
        /**
         * @description When getPetById was deprecated, as a Structured Field Date (RFC 9745): `@` and seconds since the epoch.
         * @example @1795392000
         */
        Deprecation: string;
        /**
         * @description When getPetById is retired (RFC 8594), an HTTP-date; from then on it answers 410 `gone`.
         * @example Wed, 30 Jun 2027 23:59:59 GMT
         */
        Sunset: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listInventory: {
        parameters: {
            query?: {
                /**
                 * @description At most this many entries in the response; more follow when it has a `Link` header.
                 * @example 100
                 */
                limit?: number;
                /**
                 * @description Where the page starts: copied unchanged from the previous page's `Link` header. Opaque and tamper-evident: a changed, cut or made-up cursor, or one used with another `status`, is 400.
                 * @example eyJhZnRlciI6IjciLCJzdGF0dXMiOm51bGx9.Ihlu78mwH7ThrmdS4t7jFg
                 */
                cursor?: string;
                /** @description Only the entries of this status. */
                status?: components["schemas"]["PetStatus"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The inventory entries, sorted by `petId` ascending: every one, or one page (`limit`), or those of one `status`. */
            200: {
                headers: {
                    /** @description Present when more entries follow a page: `<{next page}>; rel="next"` (RFC 8288), the target relative to the host, e.g. `</v1/inventory?limit=100&cursor=...>; rel="next"`. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InventoryItem"][];
                };
            };
            400: components["responses"]["InvalidListQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getInventoryItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the pet: a signed 64-bit integer written in canonical decimal, `-?(0|[1-9][0-9]*)`, from
                 *     -9223372036854775808 to 9223372036854775807 (`-0` matches the rule and means `0`). Anything else is
                 *     400 `invalid_request`: `abc`, `1.5`, `01`, `+1`, ` 1`, an out-of-range number, an empty value.
                 *
                 *     Exact over the whole range: the value is never rounded, and it comes back in the response body as the
                 *     same JSON integer, digit for digit. JavaScript clients must parse the response with a bigint-aware
                 *     JSON parser to keep values beyond 2^53 exact.
                 */
                petId: components["parameters"]["PetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entry of `petId`. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InventoryItem"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["InventoryEntryNotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateInventory: {
        parameters: {
            query?: never;
            header?: {
                /** @description `*`, or a comma-separated list of at most 16 entity tags of this service, such as `"12-available"` (RFC 9110 §13.1.1). A value that is neither is 400 `invalid_request`. */
                "If-Match"?: string;
            };
            path: {
                /**
                 * @description Identifier of the pet: a signed 64-bit integer written in canonical decimal, `-?(0|[1-9][0-9]*)`, from
                 *     -9223372036854775808 to 9223372036854775807 (`-0` matches the rule and means `0`). Anything else is
                 *     400 `invalid_request`: `abc`, `1.5`, `01`, `+1`, ` 1`, an out-of-range number, an empty value.
                 *
                 *     Exact over the whole range: the value is never rounded, and it comes back in the response body as the
                 *     same JSON integer, digit for digit. JavaScript clients must parse the response with a bigint-aware
                 *     JSON parser to keep values beyond 2^53 exact.
                 */
                petId: components["parameters"]["PetId"];
            };
            cookie?: never;
        };
        /** @description The new stock count. `Content-Type` must be `application/json` or a `+json` type. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["InventoryUpdate"];
            };
        };
        responses: {
            /** @description The updated entry, with the new `quantity` and its unchanged `status`. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InventoryItem"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["InventoryEntryNotFound"];
            412: components["responses"]["PreconditionFailed"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    addPet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The pet. `Content-Type` must be `application/json` or a `+json` type. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPet"];
            };
        };
        responses: {
            /** @description The pet as stored; its inventory entry exists with quantity 0. */
            201: {
                headers: {
                    /**
                     * @description The address of the new pet, `/v1/pets/{id}`.
                     * @example /v1/pets/7
                     */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pet"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["PetExists"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPetById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Identifier of the pet: a signed 64-bit integer written in canonical decimal, `-?(0|[1-9][0-9]*)`, from
                 *     -9223372036854775808 to 9223372036854775807 (`-0` matches the rule and means `0`). Anything else is
                 *     400 `invalid_request`: `abc`, `1.5`, `01`, `+1`, ` 1`, an out-of-range number, an empty value.
                 *
                 *     Exact over the whole range: the value is never rounded, and it comes back in the response body as the
                 *     same JSON integer, digit for digit. JavaScript clients must parse the response with a bigint-aware
                 *     JSON parser to keep values beyond 2^53 exact.
                 */
                petId: components["parameters"]["PetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pet. */
            200: {
                headers: {
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pet"];
                };
            };
            /** @description `invalid_request`: the petId is not a canonical int64. */
            400: {
                headers: {
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @constant */
                        code?: "invalid_request";
                        /** @constant */
                        status?: 400;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description `not_found`: there is no pet with this id. */
            404: {
                headers: {
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @constant */
                        code?: "not_found";
                        /** @constant */
                        status?: 404;
                    };
                };
            };
            /** @description `gone`: the sunset has passed; the operation is retired. */
            410: {
                headers: {
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @constant */
                        code?: "gone";
                        /** @constant */
                        status?: 410;
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            /** @description `internal_error`: a fault of the service. */
            500: {
                headers: {
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @constant */
                        code?: "internal_error";
                        /** @constant */
                        status?: 500;
                    };
                };
            };
            /** @description `service_unavailable`: the database is unavailable; retry later. */
            503: {
                headers: {
                    Deprecation: components["headers"]["Deprecation"];
                    Sunset: components["headers"]["Sunset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @constant */
                        code?: "service_unavailable";
                        /** @constant */
                        status?: 503;
                    };
                };
            };
        };
    };
    listOrders: {
        parameters: {
            query?: {
                /** @description Orders per page, an integer from 1 to 1000 (default 100); anything else is 400. */
                limit?: number;
                /** @description The cursor of the previous page's `Link`; any other value is 400. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of orders, newest first. */
            200: {
                headers: {
                    /**
                     * @description `<{url of the next page}>; rel="next"` when more orders follow.
                     * @example </v1/store/orders?limit=2&cursor=NzUyOTEwNDM4Njk0OTEyMw>; rel="next"
                     */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"][];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    placeOrder: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description 1 to 255 visible ASCII characters, sent once; anything else is 400 `invalid_request`.
                 * @example 4f6c1d2e-order-1
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The order. `Content-Type` must be `application/json` or a `+json` type. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewOrder"];
            };
        };
        responses: {
            /** @description The order; the stock is reserved. */
            201: {
                headers: {
                    /**
                     * @description The address of the new order, `/v1/store/orders/{orderId}`.
                     * @example /v1/store/orders/7529104386949123
                     */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["InventoryEntryNotFound"];
            /** @description `insufficient_stock`: fewer than the order's quantity in stock (nothing changed); or `conflict`: a request with the same `Idempotency-Key` is still running (retry later). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @enum {unknown} */
                        code?: "insufficient_stock" | "conflict";
                        /** @constant */
                        status?: 409;
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getOrderById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The order's identifier, a signed 64-bit integer in canonical decimal (as `petId`); anything else is 400 `invalid_request`.
                 * @example 7529104386949123
                 */
                orderId: bigint;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Order"];
                };
            };
            400: components["responses"]["InvalidRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["OrderNotFound"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}

/** Names of the properties that are `format: int64` in openapi.yaml: the client parses them as bigint. */
export const int64Properties: ReadonlySet<string> = new Set(['id', 'petId']);
