/**
 * listEvents, `GET /v1/events` (proxy event 1.0; experimental): docs/contract.md "History and events". Every
 * event of the last 30 days, oldest first, each as a webhook delivers it plus its `id`, in pages whose `Link`
 * rel="next" (on every page: the feed goes on) carries the cursor to continue after them.
 */
import { operationNamed, stageName } from '#lib/api.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { feedJson, feedPage, placeOf, positionsAfter } from '#lib/events/event-feed.ts';
import { logCount } from '#lib/events/event-logs.ts';
import { eventsCursor, parseAfter, parseEventType } from '#lib/events/event-query.ts';
import { invalidRequest } from '#lib/http/errors.ts';
import { httpFunction } from '#lib/http/http-function.ts';
import { parseLimit } from '#lib/http/page-limit.ts';
import { singleQueryValue } from '#lib/http/request-parameters.ts';
import { jsonResponse } from '#lib/http/responses.ts';
import { tables } from '#lib/tables.ts';

const eventsTable = requiredEnv(tables.events.env);

/** The Lambda handler. */
export const handler = httpFunction(operationNamed('listEvents')).handler(async (event) => {
  const query = event.multiValueQueryStringParameters;
  const limit = parseLimit(singleQueryValue(query, 'limit'));
  const type = singleQueryValue(query, 'type');
  const types = parseEventType(type);
  const after = parseAfter(singleQueryValue(query, 'after'));
  const nowMs = Date.now();
  let positions: number[] = Array.from({ length: logCount }, () => 0);
  if (after && 'positions' in after) positions = after.positions;
  if (after && 'eventId' in after) {
    const place = await placeOf(documentClient, eventsTable, after.eventId, nowMs);
    if (!place) throw invalidRequest(`after names no event of the last 30 days: ${after.eventId}`);
    positions = positionsAfter(place);
  }
  const page = await feedPage(documentClient, eventsTable, { limit, types, after: positions, nowMs });
  const filter = type === undefined ? '' : `&type=${type}`;
  return jsonResponse(200, feedJson(page.events), {
    Link: `</${stageName}/events?limit=${limit}${filter}&after=${eventsCursor(page.next)}>; rel="next"`,
  });
});
