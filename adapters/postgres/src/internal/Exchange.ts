/**
 * One round trip with PostgreSQL, spoken in its extended query protocol: a node-postgres `Submittable` that sends
 * several statements back to back, ends them with one Sync, and collects each statement's rows. The client hands it
 * the connection and routes the server's answers to it. Outside an explicit transaction (BEGIN), the statements of one
 * exchange run as one implicit transaction: all of them commit, or none if one fails.
 *
 * Every statement is prepared once per connection under a name derived from its text, and described once: later
 * exchanges send only Bind and Execute for it, and read its rows with the column names and parsers remembered from
 * the first time. Compared with one node-postgres `Query` per statement, an exchange costs the client one object
 * instead of several per statement, one Sync instead of one per statement, and no Describe once a statement is known.
 */
import { createHash } from "node:crypto"
import pg from "pg"
import pgUtils from "pg/lib/utils.js"
import type { Compiled } from "./Sql.js"

/** A result row as node-postgres would return it: column names to parsed values. */
export type Row = Readonly<Record<string, unknown>>

const INT8 = 20

/** `bigint` columns hold epoch milliseconds and counts, all far below 2^53: they are read as numbers. */
export const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 && format !== "binary"
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format ?? "text")) as pg.CustomTypesConfig["getTypeParser"]
}

/** The columns of a statement's rows: their names, and how each column's text is read. */
interface Columns {
  readonly names: ReadonlyArray<string>
  readonly parsers: ReadonlyArray<(text: string) => unknown>
}

const NO_COLUMNS: Columns = { names: [], parsers: [] }

/**
 * What a connection knows of a named statement: its `Columns` once it is prepared and described; `SENT` while its
 * Parse is on the way; `UNKNOWN` after an exchange failed with its Parse unconfirmed (the next use closes it first,
 * in case it exists). Absent: never prepared.
 */
const SENT = 0
const UNKNOWN = 1
type Prepared = Columns | typeof SENT | typeof UNKNOWN

const preparedOn = new WeakMap<pg.Connection, Map<string, Prepared>>()

/** How many statements one connection keeps prepared at most; past that, new texts are parsed each time. */
const PREPARED_PER_CONNECTION = 500

const names = new Map<string, string>()

/** The name a statement is prepared under. */
export const nameOf = (text: string): string => {
  let name = names.get(text)
  if (name === undefined) {
    name = `stint_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`
    // The adapter's statements come in a few dozen shapes; the bound only guards against misuse.
    if (names.size < 1_000) names.set(text, name)
  }
  return name
}

/** A failure of an exchange: the error, and the index of the statement the server refused, if one. */
export interface Failure {
  readonly error: unknown
  readonly index: number | undefined
}

/** How an exchange answers, once: the rows of each statement, or the failure. */
export type Answer = (failure: Failure | undefined, rows: ReadonlyArray<ReadonlyArray<Row>>) => void

/** One statement on its way. */
interface Pending {
  readonly name: string
  readonly described: boolean
  columns: Columns | undefined
  readonly rows: Array<Row>
}

/**
 * Statements sent together, answered together. Give it to `client.query`; `answer` is called once, after the
 * server's ReadyForQuery (so the connection is free again) or on the first failure. After a statement fails the server
 * skips the rest up to the Sync, and the client waits for its ReadyForQuery before it runs anything else.
 */
export class Exchange implements pg.Submittable {
  private prepared: Map<string, Prepared> | undefined
  private readonly pending: Array<Pending> = []
  private done = 0
  private answer: Answer | undefined
  /** A row whose text a parser refused: the exchange fails with it. */
  private unreadable: Failure | undefined
  /** Whether the exchange is over: answered, with its rows or a failure. */
  ended = false
  /** Set by node-postgres when the client has a query timeout; called once when the exchange is over. */
  callback: ((error: Error | null) => void) | undefined

  constructor(private readonly statements: ReadonlyArray<Compiled>, answer: Answer) {
    this.answer = answer
  }

  submit(connection: pg.Connection): void {
    let prepared = preparedOn.get(connection)
    if (prepared === undefined) {
      prepared = new Map()
      preparedOn.set(connection, prepared)
    }
    this.prepared = prepared
    // Every message of the exchange leaves in one write. A parameter that cannot be sent (a value node-postgres cannot
    // write) fails the exchange as a broken connection: part of it may be on its way.
    connection.stream.cork()
    try {
      for (const statement of this.statements) {
        let name = nameOf(statement.text)
        let known = prepared.get(name)
        if (known === undefined && prepared.size >= PREPARED_PER_CONNECTION) name = ""
        if (name === "" || known === undefined || known === UNKNOWN) {
          // Closing a statement that does not exist is not an error.
          if (known === UNKNOWN) connection.close({ type: "S", name }, true)
          connection.parse({ text: statement.text, name, types: [] }, true)
          if (name !== "") prepared.set(name, SENT)
          known = undefined
        }
        connection.bind({
          statement: name,
          // node-postgres' own mapping of parameter values to text (arrays as array literals, objects as JSON).
          values: statement.values as Array<string | null>,
          valueMapper: pgUtils.prepareValue
        }, true)
        const columns = typeof known === "object" ? known : undefined
        if (columns === undefined) connection.describe({ type: "P", name: "" }, true)
        connection.execute({ portal: "" }, true)
        this.pending.push({ name, described: columns === undefined, columns, rows: [] })
      }
      connection.sync()
    } catch (error) {
      this.handleError(new Error(`a statement could not be sent: ${error instanceof Error ? error.message : String(error)}`))
    } finally {
      connection.stream.uncork()
    }
  }

  handleRowDescription(message: { readonly fields: ReadonlyArray<{ readonly name: string; readonly dataTypeID: number }> }): void {
    const statement = this.pending[this.done]
    if (statement === undefined) return
    statement.columns = {
      names: message.fields.map((field) => field.name),
      parsers: message.fields.map((field) => types.getTypeParser(field.dataTypeID, "text"))
    }
  }

  handleDataRow(message: { readonly fields: ReadonlyArray<string | null> }): void {
    const statement = this.pending[this.done]
    const columns = statement?.columns
    if (statement === undefined || columns === undefined || this.unreadable !== undefined) return
    const row: Record<string, unknown> = {}
    const fields = message.fields
    try {
      for (let i = 0; i < fields.length; i++) {
        const name = columns.names[i]
        const parse = columns.parsers[i]
        if (name === undefined || parse === undefined) continue
        const text = fields[i]
        row[name] = text === null || text === undefined ? null : parse(text)
      }
    } catch (error) {
      // Thrown here, it would escape into the connection's reader; the exchange fails once the server is done.
      this.unreadable = { error, index: this.done }
      return
    }
    statement.rows.push(row)
  }

  handleCommandComplete(): void {
    const statement = this.pending[this.done]
    if (statement === undefined) return
    if (statement.described && statement.name !== "") this.prepared?.set(statement.name, statement.columns ?? NO_COLUMNS)
    this.done++
  }

  handleEmptyQuery(): void {
    this.handleCommandComplete()
  }

  handleReadyForQuery(): void {
    this.end(this.unreadable)
  }

  handleError(error: unknown): void {
    // Statements whose Parse was not confirmed may or may not exist now.
    const prepared = this.prepared
    if (prepared !== undefined) {
      for (const statement of this.pending) if (prepared.get(statement.name) === SENT) prepared.set(statement.name, UNKNOWN)
    }
    this.end({ error, index: this.done < this.pending.length ? this.done : undefined })
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: pg.Connection & { readonly sendCopyFail?: (message: string) => void }): void {
    connection.sendCopyFail?.("no COPY is expected here")
  }

  handleCopyData(): void {}

  private end(failure: Failure | undefined): void {
    if (this.ended) return
    this.ended = true
    const error = failure?.error
    this.callback?.(error === undefined ? null : error instanceof Error ? error : new Error(String(error)))
    const answer = this.answer
    this.answer = undefined
    answer?.(failure, failure === undefined ? this.pending.map((statement) => statement.rows) : [])
  }
}
