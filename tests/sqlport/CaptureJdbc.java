// Drives pgjdbc's DatabaseMetaData and a PreparedStatement against a real PostgreSQL so that its
// statement log records the SQL pgjdbc sends (tests/sqlport/corpus/pgjdbc.sql); prints the
// answers of getTables/getColumns as JSON lines (golden data for catalog_test.cc).
//
//   java -cp build/sqlport-clients/postgresql-42.7.14.jar tests/sqlport/CaptureJdbc.java URL
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;

public class CaptureJdbc {
  static void dump(String name, ResultSet rs, String... columns) throws Exception {
    StringBuilder out = new StringBuilder("{\"" + name + "\": [");
    boolean first = true;
    while (rs.next()) {
      out.append(first ? "" : ", ").append("[");
      for (int i = 0; i < columns.length; i++) {
        String value = rs.getString(columns[i]);
        out.append(i == 0 ? "" : ", ")
            .append(value == null ? "null" : "\"" + value.replace("\"", "\\\"") + "\"");
      }
      out.append("]");
      first = false;
    }
    System.out.println(out.append("]}"));
    rs.close();
  }

  public static void main(String[] args) throws Exception {
    try (Connection conn = DriverManager.getConnection(args[0])) {
      DatabaseMetaData meta = conn.getMetaData();
      meta.getDatabaseProductVersion();
      dump("getTables", meta.getTables(null, "strata", "%", new String[] {"TABLE", "VIEW"}),
           "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE");
      dump("getColumns", meta.getColumns(null, "strata", "Order", "%"),
           "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "ORDINAL_POSITION", "NULLABLE");
      dump("getSchemas", meta.getSchemas(), "TABLE_SCHEM");
      dump("getPrimaryKeys", meta.getPrimaryKeys(null, "strata", "Order"), "COLUMN_NAME");
      dump("getTypeInfo", meta.getTypeInfo(), "TYPE_NAME", "DATA_TYPE");
      dump("getCatalogs", meta.getCatalogs(), "TABLE_CAT");
      dump("getTableTypes", meta.getTableTypes(), "TABLE_TYPE");
      dump("getImportedKeys", meta.getImportedKeys(null, "strata", "Order"), "FKCOLUMN_NAME");
      dump("getIndexInfo", meta.getIndexInfo(null, "strata", "Order", false, true), "INDEX_NAME");
      try (PreparedStatement statement = conn.prepareStatement(
               "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relname = ? AND c.relkind = ?")) {
        statement.setString(1, "Order");
        statement.setString(2, "r");
        try (ResultSet rs = statement.executeQuery()) {
          ResultSetMetaData columns = rs.getMetaData();
          columns.getColumnTypeName(1);
          dump("prepared", rs, "relname");
        }
      }
    }
  }
}
