"""SQLAlchemy 2 (psycopg dialect) inspector and pandas.read_sql against the SQL port."""
from __future__ import annotations

import pandas
import sqlalchemy

from answers import PAIRS, same_rows
from conftest import token_for


def engine(server, role="admin"):
    url = sqlalchemy.engine.URL.create(
        "postgresql+psycopg", username="analyst", password=token_for(role), host="127.0.0.1",
        port=server.sql_port, database="strata", query={"sslmode": "disable"})
    return sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool)


def test_inspector_sees_the_roles_tables_and_columns(server):
    inspector = sqlalchemy.inspect(engine(server))
    assert "strata" in inspector.get_schema_names()
    assert set(inspector.get_table_names(schema="strata")) == {"Order", "Customer", "Slow",
                                                               "Endless"}
    columns = {column["name"]: column for column in inspector.get_columns("Order",
                                                                          schema="strata")}
    assert isinstance(columns["status"]["type"], sqlalchemy.types.Text)
    assert isinstance(columns["order_count"]["type"], sqlalchemy.types.BigInteger)
    assert isinstance(columns["revenue"]["type"], sqlalchemy.types.Numeric)
    assert isinstance(columns["order_date"]["type"], sqlalchemy.types.TIMESTAMP)
    assert columns["order_date"]["type"].timezone
    assert "customer__region" in columns
    assert inspector.has_table("Order", schema="strata")
    assert not inspector.has_table("Nope", schema="strata")
    assert inspector.get_pk_constraint("Order", schema="strata")["constrained_columns"] == []
    assert inspector.get_foreign_keys("Order", schema="strata") == []
    assert inspector.get_indexes("Order", schema="strata") == []
    limited = sqlalchemy.inspect(engine(server, role="paid_only"))
    assert limited.get_table_names(schema="strata") == ["Order"]


def test_pandas_read_sql_answers_as_http(server):
    sql, query = PAIRS[2]
    with engine(server).connect() as connection:
        frame = pandas.read_sql(sqlalchemy.text(sql), connection)
    http = server.query(query).json["rows"]
    assert same_rows(list(frame.itertuples(index=False, name=None)), http), frame


def test_sqlalchemy_core_select(server):
    metadata = sqlalchemy.MetaData(schema="strata")
    with engine(server).connect() as connection:
        order = sqlalchemy.Table("Order", metadata, autoload_with=connection)
        statement = (sqlalchemy.select(order.c.status, sqlalchemy.func.sum(order.c.revenue))
                     .group_by(order.c.status).order_by(order.c.status))
        rows = connection.execute(statement).fetchall()
    assert same_rows(rows, server.query(PAIRS[0][1]).json["rows"])
