/**
 * Database addresses as `stint --database` reads them, and the SQLite file of one (`Database.sqliteFile`, for
 * programs that serve SQLite only).
 */
import { Database } from "@stint/http"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"

describe("Database.sqliteFile", () => {
  it("answers the file of a sqlite: address, with or without //, the scheme in any case, or a path given alone", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["sqlite:./stint.db", "./stint.db"],
      ["sqlite:///var/lib/stint.db", "/var/lib/stint.db"],
      ["sqlite://./r.db", "./r.db"],
      ["SQLite:data/x.db", "data/x.db"],
      ["./stint.db", "./stint.db"],
      ["/tmp/a.db", "/tmp/a.db"],
      ["./sqlite:odd.db", "./sqlite:odd.db"]
    ]
    for (const [address, file] of cases) expect([address, Database.sqliteFile(address)]).toEqual([address, Either.right(file)])
  })

  it("refuses an empty sqlite: path, a PostgreSQL address and an unknown scheme, with the reason in the message", () => {
    const refused: ReadonlyArray<readonly [string, RegExp]> = [
      ["sqlite:", /needs a file path/],
      ["sqlite://", /needs a file path/],
      ["postgres://user:secret@db:5432/stint", /a SQLite file is needed here/],
      ["mysql://db/stint", /use sqlite:PATH or postgres:/]
    ]
    for (const [address, reason] of refused) {
      const answer = Database.sqliteFile(address)
      if (Either.isRight(answer)) throw new Error(`${address} was taken as ${answer.right}`)
      expect(answer.left.message).toMatch(reason)
      // The password never reaches the message.
      expect(answer.left.message).not.toContain("secret")
    }
  })
})
