// The request and response classes node:http makes for an Express app, whose instances have the
// app's own prototypes from the start. Express's app.handle gives every request and response the
// app's prototypes (Object.setPrototypeOf(req, app.request), the same for res). On Node 20 that
// change of an existing object's prototype made about a quarter of everything a request allocates
// outlive a young-generation collection (V8's --trace-gc-nvp: new-space survival 22-39 % with
// Express, 0.2 % with bare node:http, 20 % with bare node:http changing the two prototypes): so it
// was promoted, full collections came every few hundred milliseconds, and each marked the gateway's
// whole live heap (docs/performance.md, Gateway). Made by node:http (its documented IncomingMessage
// and ServerResponse options) as instances of classes whose prototypes are the app's, app.handle's
// change sets the prototype the object already has, which costs nothing; Express runs every step as
// before. Subclasses, not functions returning Reflect.construct(…, newTarget): instances made that
// way measured slower to construct than the change they save.
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * For http.createServer's options. The classes' prototypes become the app's request and response
 * prototypes (app.request, app.response): the same chain (Express's methods, then node's) and the
 * same own properties (`app`, and whatever was added to them). Once per app, before it serves.
 */
export function messageClassesOf(app: Express): MessageClasses {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  app.request = adopted(app.request, AppRequest.prototype);
  app.response = adopted(app.response, AppResponse.prototype);
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof ServerResponse };
}

/** `prototype`, put where `own` was in the chain and given its own properties (not `constructor`: the class's stays). */
function adopted<T extends object>(own: T, prototype: object): T {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(own));
  for (const key of Reflect.ownKeys(own)) {
    if (key !== 'constructor') Object.defineProperty(prototype, key, Object.getOwnPropertyDescriptor(own, key)!);
  }
  return prototype as T;
}
