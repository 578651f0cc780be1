// The pgjdbc client of tests/sqlport/test_jdbc.py: connects to the SQL port with a token,
// prints what DatabaseMetaData and a PreparedStatement answer as one JSON-ish line each
// (tab-separated cells), so the Python test compares them with POST /v1/query's answers.
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.util.Properties;

public final class JdbcClient {
  private static void print(String label, ResultSet rows) throws Exception {
    ResultSetMetaData meta = rows.getMetaData();
    while (rows.next()) {
      StringBuilder line = new StringBuilder(label);
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        line.append('\t').append(rows.getString(i));
      }
      System.out.println(line);
    }
  }

  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/strata";
    Properties properties = new Properties();
    properties.setProperty("user", "analyst");
    properties.setProperty("password", args[1]);
    properties.setProperty("sslmode", args.length > 2 ? args[2] : "disable");
    try (Connection connection = DriverManager.getConnection(url, properties)) {
      DatabaseMetaData meta = connection.getMetaData();
      System.out.println("product\t" + meta.getDatabaseProductName() + "\t"
          + meta.getDatabaseProductVersion());
      try (ResultSet tables = meta.getTables(null, "strata", "%", new String[] {"TABLE"})) {
        while (tables.next()) System.out.println("table\t" + tables.getString("TABLE_NAME"));
      }
      try (ResultSet columns = meta.getColumns(null, "strata", "Order", "%")) {
        while (columns.next()) {
          System.out.println("column\t" + columns.getString("COLUMN_NAME") + "\t"
              + columns.getString("TYPE_NAME") + "\t" + columns.getInt("DATA_TYPE"));
        }
      }
      try (ResultSet schemas = meta.getSchemas()) {
        while (schemas.next()) System.out.println("schema\t" + schemas.getString("TABLE_SCHEM"));
      }
      String sql = "SELECT status, SUM(revenue) AS revenue, COUNT(*) AS orders "
          + "FROM strata.\"Order\" WHERE status <> ? AND order_date >= ? "
          + "GROUP BY status ORDER BY status";
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        for (int run = 0; run < 6; run++) {  // pgjdbc switches to a named statement after 5
          statement.setString(1, "refunded");
          statement.setTimestamp(2, java.sql.Timestamp.valueOf("2026-02-01 00:00:00"));
          try (ResultSet rows = statement.executeQuery()) {
            print("row" + run, rows);
          }
        }
      }
      try (PreparedStatement statement = connection.prepareStatement(
               "SELECT DATE_TRUNC('month', order_date) AS month, SUM(revenue) "
               + "FROM strata.\"Order\" GROUP BY 1 ORDER BY 1")) {
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            System.out.println("month\t" + rows.getTimestamp(1).toInstant() + "\t"
                + rows.getBigDecimal(2));
          }
        }
      }
    }
  }
}
