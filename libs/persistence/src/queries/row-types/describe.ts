import type { Client } from 'pg';

/** A result column as PostgreSQL's RowDescription gives it: its type, and the table column it is read from (0, 0: computed). */
export interface DescribedColumn {
  name: string;
  typeOid: number;
  tableOid: number;
  columnNumber: number;
}

/** The pieces of node-postgres' Connection a description sends (pg/lib/connection.js). */
interface ProtocolConnection {
  parse(query: { name?: string; text: string; types?: number[] }): void;
  describe(msg: { type: 'S' | 'P'; name?: string }): void;
  sync(): void;
}

interface RowDescriptionMessage {
  fields: Array<{ name: string; dataTypeID: number; tableID: number; columnID: number }>;
}

/**
 * A request the client runs as its active query (node-postgres' Submittable):
 * Parse, Describe the statement, Sync. PostgreSQL answers ParseComplete,
 * ParameterDescription, then RowDescription or NoData, then ReadyForQuery;
 * nothing is executed, no row is read or written. The client routes
 * ParseComplete, RowDescription, an error and ReadyForQuery to its active
 * query; NoData and ParameterDescription it leaves unheard.
 */
class Describe {
  private columns: DescribedColumn[] = [];

  constructor(
    private readonly text: string,
    private readonly done: (e: Error | null, columns: DescribedColumn[]) => void,
  ) {}

  submit(connection: ProtocolConnection): void {
    connection.parse({ text: this.text, types: [] });
    connection.describe({ type: 'S' });
    connection.sync();
  }

  handleParseComplete(): void {}

  handleRowDescription(msg: RowDescriptionMessage): void {
    this.columns = msg.fields.map((f) => ({ name: f.name, typeOid: f.dataTypeID, tableOid: f.tableID, columnNumber: f.columnID }));
  }

  handleError(e: Error): void {
    this.done(e, []);
  }

  handleReadyForQuery(): void {
    this.done(null, this.columns);
  }
}

/** The result columns of a statement, as PostgreSQL describes it without running it; none for a statement that returns no rows. */
export function describeStatement(client: Client, text: string): Promise<DescribedColumn[]> {
  return new Promise((resolve, reject) => {
    const request = new Describe(text, (e, columns) => (e ? reject(e) : resolve(columns)));
    void client.query(request as unknown as Parameters<Client['query']>[0]);
  });
}
