"""The server's OpenAPI document (``GET /openapi.json``), OpenAPI 3.1. The shapes of the game, orders,
step, history and possible-orders documents are those of the JSON Schema every ``--json`` output
follows (``fivedp_asp/schema/fivedp.schema.json``), taken in as components; the routes are listed
here, one entry each."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any


_BEARER = [{"bearer": []}]


def _schemas() -> dict[str, Any]:
    from ..report.jsonout import load_schema

    text = json.dumps(load_schema()["$defs"]).replace('"#/$defs/', '"#/components/schemas/')
    schemas = json.loads(text)
    schemas["error"] = {"type": "object", "required": ["error"],
                        "properties": {"error": {"type": "string", "description": "what is wrong, in words"},
                                       "phase": {"type": "string", "description": "(409) the phase key now waiting"}}}
    return schemas


def _json(ref: str, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}


def _errors(*codes: int) -> dict:
    words = {400: "bad input", 401: "no token, or one of nobody in this game", 403: "the role may not do this",
             404: "no such game", 409: "the game waits for another phase (or the power is taken, or the game is over)",
             413: "the request is too large", 429: "too many games made from this address in the last minute",
             503: "the games database cannot be reached or written just now (reads may still work)"}
    return {str(c): _json("error", words[c]) for c in (*codes, 503)}


def _body(properties: dict, required: tuple[str, ...] = ()) -> dict:
    """A JSON object of these fields: any other field is refused (400 naming it)."""
    return {"required": bool(required), "content": {"application/json": {"schema": {
        "type": "object", "required": list(required), "properties": properties, "additionalProperties": False}}}}


_PHASE = {"type": "string", "description": "the phase key of the view the change was made on (next.key), "
                                          "required (400 without it): refused with 409 when the game waits for another phase"}
_ID = [{"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}]


@lru_cache(maxsize=1)
def document() -> dict:
    """The OpenAPI document, made once."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("fivedp-asp")
    except PackageNotFoundError:
        release = "0"
    game_ref = _json("game", "the game as the token's holder may see it; server: id, role, power, revision, "
                             "players joined, deadline")
    paths = {
        "/api/games": {"post": {
            "summary": "start a game: options (or a start position, rules of your own), or a game file; you are its host",
            "requestBody": _body({"options": {"type": "object"}, "start": {"type": "object"}, "rules": {"type": "object"},
                                  "file": {"type": "string", "description": "a game file's text"},
                                  "deadline": {"type": "integer", "minimum": 10, "description": "seconds per phase"}}),
            "responses": {"200": {"description": "the game's id and the host's token (keep it secret)",
                                  "content": {"application/json": {"schema": {"type": "object", "required": ["id", "host_token"],
                                              "properties": {"id": {"type": "string"}, "host_token": {"type": "string"},
                                                             "play": {"type": "string"}, "join": {"type": "string"}}}}}},
                          **_errors(400, 413, 429)}}},
        "/api/games/{game_id}": {"get": {
            "summary": "the game: a player sees its own waiting orders and of the others only who has submitted",
            "parameters": _ID, "security": [{}, {"bearer": []}], "responses": {"200": game_ref, **_errors(400, 401, 404)}}},
        "/api/games/{game_id}/players": {"post": {
            "summary": "join as a power; the token returned is the player's only way in",
            "parameters": _ID, "requestBody": _body({"power": {"type": "string"}}, ("power",)),
            "responses": {"200": {"description": "the power and the player's token",
                                  "content": {"application/json": {"schema": {"type": "object", "required": ["power", "token"],
                                              "properties": {"power": {"type": "string"}, "token": {"type": "string"},
                                                             "play": {"type": "string"}}}}}},
                          **_errors(400, 403, 404, 409, 413)}}},
        "/api/games/{game_id}/orders": {
            "post": {"summary": "submit the player's orders for the next phase (private until adjudicated); "
                                "when every power with something to do has submitted, the answer says the phase is complete "
                                "and the server adjudicates it next (the revision announces the new phase)",
                     "parameters": _ID, "security": _BEARER,
                     "requestBody": _body({"lines": {"type": "array", "items": {"type": "string"}}, "phase": _PHASE,
                                           "replace": {"type": "boolean", "description": "the lines are the whole set"},
                                           "force": {"type": "boolean"}}, ("lines", "phase")),
                     "responses": {"200": _json("orders", "a verdict per line; complete: every submission the phase waits for is in, "
                                                            "and the phase is adjudicated next"),
                                   **_errors(400, 401, 403, 404, 409, 413)}},
            "delete": {"summary": "withdraw the player's orders", "parameters": _ID + [
                {"name": "phase", "in": "query", "required": True, "schema": _PHASE}], "security": _BEARER,
                       "responses": {"200": {"description": "withdrawn"}, **_errors(400, 401, 403, 404, 409)}}},
        "/api/games/{game_id}/orders/check": {"post": {
            "summary": "a verdict per line, as if submitted; nothing is saved", "parameters": _ID, "security": _BEARER,
            "requestBody": _body({"lines": {"type": "array", "items": {"type": "string"}}}, ("lines",)),
            "responses": {"200": _json("orders", "a verdict per line"), **_errors(400, 401, 403, 404, 413)}}},
        "/api/games/{game_id}/adjudicate": {"post": {
            "summary": "(host) adjudicate the next phase now", "parameters": _ID, "security": _BEARER,
            "requestBody": _body({"phase": _PHASE}, ("phase",)),
            "responses": {"200": _json("step_document", "the step"), **_errors(400, 401, 403, 404, 409, 413)}}},
        "/api/games/{game_id}/undo": {"post": {
            "summary": "(host) take back the last step; its orders wait again, private", "parameters": _ID,
            "security": _BEARER, "requestBody": _body({"phase": _PHASE}, ("phase",)),
            "responses": {"200": {"description": "the step taken back"}, **_errors(400, 401, 403, 404, 409, 413)}}},
        "/api/games/{game_id}/history": {"get": {
            "summary": "every step played", "parameters": _ID,
            "responses": {"200": _json("history", "the steps"), **_errors(400, 401, 404)}}},
        "/api/games/{game_id}/possible": {"get": {
            "summary": "the orders the rules accept now: the player's own (the host: every power's)",
            "parameters": _ID + [{"name": n, "in": "query", "schema": {"type": "string"}} for n in ("unit", "kind", "to")],
            "security": _BEARER, "responses": {"200": _json("possible", "the legal orders"), **_errors(400, 401, 404, 409)}}},
        "/api/games/{game_id}/picture": {"get": {
            "summary": "the multiverse drawn as one HTML page, with the orders the token's holder may see",
            "parameters": _ID + [{"name": "recent", "in": "query", "schema": {"type": "integer", "minimum": 0},
                                  "description": "only the last that many steps played (the game as it stands always)"}],
            "responses": {"200": {"description": "an HTML page", "content": {"text/html": {}}},
                                             **_errors(400, 401, 404)}}},
        "/api/games/{game_id}/file": {"get": {
            "summary": "(host) the game file, which fivedp game verify accepts", "parameters": _ID, "security": _BEARER,
            "responses": {"200": {"description": "the game file", "content": {"application/yaml": {}}},
                          **_errors(400, 401, 403, 404)}}},
        "/api/games/{game_id}/revision": {"get": {
            "summary": "the game's revision, raised by every change", "parameters": _ID,
            "responses": {"200": {"description": "the revision", "content": {"application/json": {"schema": {
                "type": "object", "properties": {"revision": {"type": "integer"}}}}}}, **_errors(404)}}},
        "/api/games/{game_id}/events": {"get": {
            "summary": "server-sent events: the revision, whenever it changes", "parameters": _ID,
            "responses": {"200": {"description": "an event stream", "content": {"text/event-stream": {}}},
                          **_errors(404)}}},
    }
    return {"openapi": "3.1.0",
            "info": {"title": "fivedp serve", "version": release,
                     "description": "5D Diplomacy with Multiversal Time Travel, adjudicated by fivedp (docs/server.md)"},
            "paths": paths,
            "components": {"schemas": _schemas(),
                           "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                                          "description": "the host's or a player's token"}}}}
