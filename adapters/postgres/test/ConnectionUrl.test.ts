/**
 * The database address's `sslmode` means what it means to libpq (`psql`): node-postgres, left to itself, reads
 * `prefer`, `require` and `verify-ca` as `verify-full` and warns over many lines on stderr.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import pg from "pg"
import { libpqCompatible, makePool, REPLAN_AFTER_MILLIS, resolveSslMode } from "../src/internal/Database.js"
import { databaseLayer, TestDatabase } from "./support.js"

/** What node-postgres makes of an address: its `ssl` setting, read as a client would (nothing is connected). */
const sslOf = (url: string): unknown => (new pg.Client({ connectionString: url }) as unknown as { ssl: unknown }).ssl

describe("the database address's sslmode", () => {
  it("require and prefer encrypt without verifying the certificate, as in libpq; verify-full verifies; disable is plain", () => {
    const base = "postgres://stint@db.example:5432/stint"
    const warnings: Array<Error> = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on("warning", onWarning)
    try {
      for (const mode of ["require", "prefer"]) {
        expect(sslOf(libpqCompatible(`${base}?sslmode=${mode}`)), mode).toMatchObject({ rejectUnauthorized: false })
      }
      const full = sslOf(libpqCompatible(`${base}?sslmode=verify-full`))
      expect(full).toBeTruthy()
      expect(full).not.toMatchObject({ rejectUnauthorized: false })
      expect(sslOf(libpqCompatible(`${base}?sslmode=disable`))).toBe(false)
    } finally {
      process.off("warning", onWarning)
    }
    expect(warnings.map((warning) => warning.message)).toEqual([])
  })

  it("leaves an address without sslmode, or one that chooses uselibpqcompat itself, as it is", () => {
    for (
      const url of [
        "postgres://stint@db.example/stint",
        "postgres://stint@db.example/stint?application_name=x",
        "postgres://stint@db.example/stint?sslmode=require&uselibpqcompat=false"
      ]
    ) expect(libpqCompatible(url)).toBe(url)
    expect(libpqCompatible("postgres://stint@db.example/stint?sslmode=require"))
      .toBe("postgres://stint@db.example/stint?sslmode=require&uselibpqcompat=true")
  })

  it.scoped("a pool on an address with sslmode connects with the parameter added (sslmode=disable here)", () =>
    Effect.gen(function*() {
      const { url } = yield* TestDatabase
      const pool = yield* makePool({
        url: `${url}${url.includes("?") ? "&" : "?"}sslmode=disable`,
        poolSize: 1,
        connectTimeoutMillis: 5_000,
        statementTimeoutMillis: 5_000,
        replanAfterMillis: REPLAN_AFTER_MILLIS
      })
      const { rows } = yield* Effect.promise(() => pool.query<{ ssl: boolean }>("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))
      expect(rows).toEqual([{ ssl: false }])
    }).pipe(Effect.provide(databaseLayer)))

  it.scoped("prefer and allow connect as libpq does: encrypted only when the server can (prefer) or insists (allow)", () =>
    Effect.gen(function*() {
      const { url } = yield* TestDatabase
      const withMode = (mode: string) => `${url}${url.includes("?") ? "&" : "?"}sslmode=${mode}`
      const settings = { poolSize: 1, connectTimeoutMillis: 5_000, statementTimeoutMillis: 5_000, replanAfterMillis: REPLAN_AFTER_MILLIS }
      const plain = yield* makePool({ ...settings, url })
      const serverSsl = (yield* Effect.promise(() => plain.query<{ ssl: string }>("SHOW ssl"))).rows[0]?.ssl
      for (const [mode, encrypted] of [["prefer", serverSsl === "on"], ["allow", false]] as const) {
        // node-postgres alone fails `prefer` against a server without SSL, and reads `allow` as `verify-full`.
        const pool = yield* makePool({ ...settings, url: withMode(mode) })
        const { rows } = yield* Effect.promise(() => pool.query<{ ssl: boolean }>("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))
        expect(rows, mode).toEqual([{ ssl: encrypted }])
      }
    }).pipe(Effect.provide(databaseLayer)))

  it("resolves only prefer and allow, and only by connecting: any other address is used as it is", async () => {
    for (
      const url of [
        "postgres://stint@192.0.2.1:5432/stint",
        "postgres://stint@192.0.2.1:5432/stint?sslmode=require",
        "postgres://stint@192.0.2.1:5432/stint?sslmode=disable",
        "postgres://stint@192.0.2.1:5432/stint?sslmode=prefer&uselibpqcompat=false"
      ]
    ) expect(await resolveSslMode(url, 100)).toBe(url)
    // An unreachable server: the address is kept (the pool will say why it cannot connect), encrypted as libpq's first try.
    expect(await resolveSslMode("postgres://stint@127.0.0.1:1/stint?sslmode=prefer", 1_000))
      .toBe("postgres://stint@127.0.0.1:1/stint?sslmode=require")
  })
})
