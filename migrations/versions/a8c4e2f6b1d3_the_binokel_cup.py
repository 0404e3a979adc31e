"""the series of tournament evenings (Binokel-Cup)

``tournament_series``: a series with its organiser and public links, how the
evenings count (all, the best k, only players of every evening) and whether
the draw counts the earlier evenings' tables as met.
``tournament_series_player``: a person across the evenings.  ``tournament``
gets the series it belongs to, ``tournament_entrant`` the person it is.
Existing tournaments stay single evenings.

Revision ID: a8c4e2f6b1d3
Revises: f3b9d2a7c1e4
Create Date: 2026-11-26 01:30:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a8c4e2f6b1d3'
down_revision = 'f3b9d2a7c1e4'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('tournament_series',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token', sa.String(length=32), nullable=False),
    sa.Column('view_token', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('counting', sa.String(length=8), nullable=False),
    sa.Column('best', sa.Integer(), nullable=False),
    sa.Column('met_across', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tournament_series')),
    sa.UniqueConstraint('token', name=op.f('uq_tournament_series_token')),
    sa.UniqueConstraint('view_token', name=op.f('uq_tournament_series_view_token'))
    )
    op.create_table('tournament_series_player',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('series_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('club', sa.String(length=60), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['series_id'], ['tournament_series.id'], name=op.f('fk_tournament_series_player_series_id_tournament_series')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tournament_series_player'))
    )
    with op.batch_alter_table('tournament_series_player', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tournament_series_player_series_id'), ['series_id'], unique=False)

    # ALTER TABLE … ADD COLUMN … REFERENCES (SQLite allows it for a column that starts
    # NULL); a batch copy of the tables would drop them, which the rows referring forbid
    _add_reference('tournament', 'series_id', 'tournament_series',
                   'fk_tournament_series_id_tournament_series')
    op.create_index(op.f('ix_tournament_series_id'), 'tournament', ['series_id'], unique=False)
    _add_reference('tournament_entrant', 'series_player_id', 'tournament_series_player',
                   'fk_tournament_entrant_series_player_id_tournament_series_player')
    op.create_index(op.f('ix_tournament_entrant_series_player_id'), 'tournament_entrant', ['series_player_id'], unique=False)


def _add_reference(table, column, target, name):
    """A nullable integer column referring to ``target.id``, with a named foreign key."""
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(
            f'ALTER TABLE {table} ADD COLUMN {column} INTEGER '
            f'CONSTRAINT {name} REFERENCES {target} (id)'
        )
    else:
        op.add_column(table, sa.Column(column, sa.Integer(), nullable=True))
        op.create_foreign_key(name, table, target, [column], ['id'])


def downgrade():
    op.drop_index(op.f('ix_tournament_entrant_series_player_id'), table_name='tournament_entrant')
    op.drop_index(op.f('ix_tournament_series_id'), table_name='tournament')
    with op.batch_alter_table('tournament_entrant', schema=None, recreate='never') as batch_op:
        if op.get_bind().dialect.name != 'sqlite':
            batch_op.drop_constraint(op.f('fk_tournament_entrant_series_player_id_tournament_series_player'), type_='foreignkey')
        batch_op.drop_column('series_player_id')
    with op.batch_alter_table('tournament', schema=None, recreate='never') as batch_op:
        if op.get_bind().dialect.name != 'sqlite':
            batch_op.drop_constraint(op.f('fk_tournament_series_id_tournament_series'), type_='foreignkey')
        batch_op.drop_column('series_id')
    with op.batch_alter_table('tournament_series_player', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tournament_series_player_series_id'))
    op.drop_table('tournament_series_player')
    op.drop_table('tournament_series')
